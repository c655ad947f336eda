#!/usr/bin/env python3
"""Exhaustive model of the protocol of promotion with aggregation (runtime/promote.cu, __klap_pool_*;
docs/promotion.md), over every interleaving of small cases.

A chain of L links (link 0 is the host's instance, each link k < L - 1 reaches its launch of link k + 1).
The host's instance launches a pool of G blocks; each block of a pool takes a logical index from the pool's
counter as it starts, waits for its slot (DONE) or the pool's abort, runs its link, stores its successor's
arguments (TAKEN) at its launch, and at its end releases the successor's slot (DONE) and counts itself
finished in its pool (the last frees the record). The block with the last index launches the next pool
after its wait. A pool's record may fail to be allocated (the link then launches the host's form as
written, a new chain of pools). At most R blocks are resident at once, on a device shared by every grid,
and the scheduler starts any launched block when there is room: nothing assumes a pool's blocks are
co-resident or start in blockIdx order.

With overlap (promote=all), a block's first wait is for EARLY (or DONE) on its slot; after it (and the
next pool's launch, for the last index) its leader publishes the successor's early arguments (EARLY) where the
launch condition holds, the block runs its prologue, and a second wait is for DONE; a block that ends at the
second wait releases its successor with DONE alone. With the release at the launch site (chains written with
NULL or fire-and-forget launches), the launching thread sets TAKEN and DONE at the launch and the block does not
touch the slot again at its end.

Checked in every reachable state: no deadlock (some step can be taken until every block is done), the
links run once each in chain order, no pool record is touched after it is freed, and at the end every
record is freed and no launch is lost. Exit status 0 when every case holds.
"""
import sys

UNSCHED, START, WAIT, LAUNCH, PUBLISH, WAIT2, WORK, SITE, EXIT, DONE_PHASE = range(10)
TAKEN, DONE, EARLY = 1, 2, 4


def run_case(G, R, L, speculative, max_failures, overlap=False, at_site=False):
    # pool: (ticket, abort, finished, slots tuple, freed, base link)
    # block: (kind 'h'|'p', pool index or -1, phase, index, link, next (pool, slot) or None)
    init = ((), (("h", -1, UNSCHED, 0, 0, None),), 0, max_failures)
    seen = set()
    stack = [init]
    finals = 0
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        succ = list(steps(state, G, R, L, speculative, overlap, at_site))
        pools, blocks, executed, _ = state
        if not succ:
            if any(b[2] != DONE_PHASE for b in blocks):
                raise AssertionError(f"deadlock: pools={pools} blocks={blocks}")
            if executed != L:
                raise AssertionError(f"{executed} of {L} links ran: a launch was lost")
            if not all(p[4] for p in pools):
                raise AssertionError(f"a pool record was never freed: {pools}")
            finals += 1
        stack.extend(succ)
    return len(seen), finals


def steps(state, G, R, L, speculative, overlap, at_site):
    pools, blocks, executed, failures = state
    resident = sum(1 for b in blocks if b[2] not in (UNSCHED, DONE_PHASE))
    for n, b in enumerate(blocks):
        kind, own, phase, index, link, nxt = b
        def put(block, pools_=pools, extra=(), executed_=executed, failures_=failures):
            bl = blocks[:n] + (block,) + blocks[n + 1:] + tuple(extra)
            return (pools_, bl, executed_, failures_)
        def pool_set(p, **kw):
            t, a, f, s, freed, base = pools[p]
            assert not freed, f"pool {p} touched after it was freed"
            d = dict(ticket=t, abort=a, finished=f, slots=s, freed=freed, base=base)
            d.update(kw)
            new = (d["ticket"], d["abort"], d["finished"], d["slots"], d["freed"], d["base"])
            return pools[:p] + (new,) + pools[p + 1:]
        if phase == UNSCHED:
            if resident >= R:
                continue
            if kind == "h":
                yield put((kind, own, START, index, link, nxt))
            else:
                t, a, f, s, freed, base = pools[own]
                assert not freed
                # Thread 0 takes the index before any wait.
                yield put((kind, own, WAIT, t, base + t, nxt), pools_=pool_set(own, ticket=t + 1))
        elif phase == WAIT:
            t, a, f, s, freed, base = pools[own]
            assert not freed
            ready = DONE | EARLY if overlap else DONE
            if s[index] & DONE and not s[index] & TAKEN:
                # The chain ended before this link: abort, counted finished.
                yield from finish(put, pool_set, own, (kind, own, DONE_PHASE, index, link, None), G, abort=True, pools=pools)
            elif s[index] & ready:
                yield put((kind, own, LAUNCH, index, link, nxt))
            elif a:
                yield from finish(put, pool_set, own, (kind, own, DONE_PHASE, index, link, None), G, abort=False, pools=pools)
        elif phase == PUBLISH:
            # The leader publishes the successor's early arguments where the launch condition holds (known at
            # the start: overlap is only taken then).
            pools_ = pools
            if nxt is not None and link + 1 < L:
                p, i = nxt
                t, a, f, s, freed, base = pools[p]
                pools_ = pool_set(p, slots=s[:i] + (s[i] | EARLY,) + s[i + 1:])
            yield put((kind, own, WAIT2 if kind == "p" else WORK, index, link, nxt), pools_=pools_)
        elif phase == WAIT2:
            t, a, f, s, freed, base = pools[own]
            assert not freed
            if s[index] & DONE and s[index] & TAKEN:
                yield put((kind, own, WORK, index, link, nxt))
            elif s[index] & DONE or a:
                # The chain ended before this link's end: its successor released without a launch, abort.
                pools_ = pools
                if nxt is not None:
                    p, i = nxt
                    t2, a2, f2, s2, freed2, base2 = pools[p]
                    pools_ = pool_set(p, slots=s2[:i] + (s2[i] | DONE,) + s2[i + 1:])
                yield from finish(put, None, own, (kind, own, DONE_PHASE, index, link, None), G, abort=True, pools=pools_)
        elif phase in (START, LAUNCH):
            last = kind == "h" or index == G - 1
            after = PUBLISH if overlap else WORK
            if not last:
                yield put((kind, own, after, index, link, (own, index + 1)))
                continue
            if link + 1 < L or speculative:
                # A new pool, its record allocated (or, where a failure is left to try, not).
                p = len(pools)
                new_pool = (0, 0, 0, (0,) * G, False, link + 1)
                members = tuple(("p", p, UNSCHED, 0, 0, None) for _ in range(G))
                yield put((kind, own, after, index, link, (p, 0)), pools_=pools + (new_pool,), extra=members)
                if failures > 0:
                    yield put((kind, own, after, index, link, None), failures_=failures - 1)
            else:
                yield put((kind, own, after, index, link, None))
        elif phase == WORK:
            assert link == executed, f"link {link} ran after {executed} links"
            yield put((kind, own, SITE, index, link, nxt), executed_=executed + 1)
        elif phase == SITE:
            if link + 1 < L:
                if nxt is None:
                    # The launch as written: the host's form, a new chain start.
                    yield put((kind, own, EXIT, index, link, nxt), extra=(("h", -1, UNSCHED, 0, link + 1, None),))
                else:
                    p, i = nxt
                    t, a, f, s, freed, base = pools[p]
                    assert not s[i] & TAKEN
                    assert base + i == link + 1, "the successor slot is not the next link's"
                    if at_site:
                        # Released here; the block does not touch the slot again.
                        slots = s[:i] + (s[i] | TAKEN | DONE,) + s[i + 1:]
                        yield put((kind, own, EXIT, index, link, None), pools_=pool_set(p, slots=slots))
                    else:
                        slots = s[:i] + (s[i] | TAKEN,) + s[i + 1:]
                        yield put((kind, own, EXIT, index, link, nxt), pools_=pool_set(p, slots=slots))
            else:
                yield put((kind, own, EXIT, index, link, nxt))
        elif phase == EXIT:
            pools_ = pools
            if nxt is not None:
                p, i = nxt
                t, a, f, s, freed, base = pools[p]
                slots = s[:i] + (s[i] | DONE,) + s[i + 1:]
                pools_ = pool_set(p, slots=slots)
            if own >= 0:
                yield from finish(put, None, own, (kind, own, DONE_PHASE, index, link, None), G, abort=False, pools=pools_)
            else:
                yield put((kind, own, DONE_PHASE, index, link, None), pools_=pools_)


def finish(put, _pool_set, own, block, G, abort, pools):
    t, a, f, s, freed, base = pools[own]
    assert not freed, f"pool {own} touched after it was freed"
    a = 1 if abort else a
    f += 1
    freed = f == G
    new = (t, a, f, s, freed, base)
    yield put(block, pools_=pools[:own] + (new,) + pools[own + 1:])


def main():
    cases = 0
    states = 0
    for overlap in (False, True):
        for at_site in (False, True):
            # With the release at the launch site a successor starts before its predecessor ends: pools of 3
            # take half a minute to enumerate there, so pools of up to 2 (chains of up to 6 links, 3 pools).
            for G in (1, 2) if at_site else (1, 2, 3):
                for R in (1, 2, 3, 4):
                    for L in range(1, 2 * G + 3):
                        # Overlap is taken only where the launch condition is known at the start.
                        for speculative in (False,) if overlap else (False, True):
                            for max_failures in (0, 1):
                                n, finals = run_case(G, R, L, speculative, max_failures, overlap, at_site)
                                assert finals > 0
                                cases += 1
                                states += n
    print(f"PASS: {cases} cases, {states} states: no deadlock, links in order, no lost launch, no use after free")
    return 0


if __name__ == "__main__":
    sys.exit(main())
