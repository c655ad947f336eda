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

Checked in every reachable state: no deadlock (some step can be taken until every block is done), the
links run once each in chain order, no pool record is touched after it is freed, and at the end every
record is freed and no launch is lost. Exit status 0 when every case holds.
"""
import sys

UNSCHED, START, WAIT, LAUNCH, WORK, SITE, EXIT, DONE_PHASE = range(8)
TAKEN, DONE = 1, 2


def run_case(G, R, L, speculative, max_failures):
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
        succ = list(steps(state, G, R, L, speculative))
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


def steps(state, G, R, L, speculative):
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
            if s[index] & DONE:
                if s[index] & TAKEN:
                    yield put((kind, own, LAUNCH, index, link, nxt))
                else:
                    # The chain ended before this link: abort, counted finished.
                    yield from finish(put, pool_set, own, (kind, own, DONE_PHASE, index, link, None), G, abort=True, pools=pools)
            elif a:
                yield from finish(put, pool_set, own, (kind, own, DONE_PHASE, index, link, None), G, abort=False, pools=pools)
        elif phase in (START, LAUNCH):
            last = kind == "h" or index == G - 1
            if not last:
                yield put((kind, own, WORK, index, link, (own, index + 1)))
                continue
            if link + 1 < L or speculative:
                # A new pool, its record allocated (or, where a failure is left to try, not).
                p = len(pools)
                new_pool = (0, 0, 0, (0,) * G, False, link + 1)
                members = tuple(("p", p, UNSCHED, 0, 0, None) for _ in range(G))
                yield put((kind, own, WORK, index, link, (p, 0)), pools_=pools + (new_pool,), extra=members)
                if failures > 0:
                    yield put((kind, own, WORK, index, link, None), failures_=failures - 1)
            else:
                yield put((kind, own, WORK, index, link, None))
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
    for G in (1, 2, 3):
        for R in (1, 2, 3, 4):
            for L in range(1, 2 * G + 3):
                for speculative in (False, True):
                    for max_failures in (0, 1):
                        n, finals = run_case(G, R, L, speculative, max_failures)
                        assert finals > 0
                        cases += 1
                        states += n
    print(f"PASS: {cases} cases, {states} states: no deadlock, links in order, no lost launch, no use after free")
    return 0


if __name__ == "__main__":
    sys.exit(main())
