#!/usr/bin/env python3
"""Generates random CUDA programs with device-side launches (CDP2, sm_90) for differential testing
of klap: the same program built untransformed and at each granularity must print the same lines.

One translation unit holds many independent cases (a CUDA compile costs seconds, a case
microseconds). Case i of seed s is generated from (s, i) alone, so `--case i` reproduces it in a
file of its own. Every child writes only through commutative integer atomics, or into a log whose
checksum does not depend on the order of its entries, so a case's checksum is the same whatever
order its launches run in. See fuzz/README.md for the shapes covered.

Usage: gen.py --seed S [--cases N | --case I ...] [-o FILE]
"""

import argparse
import sys

MASK64 = (1 << 64) - 1

# Layout of a case's output buffer (64-bit words): W hashed slots that children add into, then the
# counters, then the log of block results.
W = 4096
WIN = 1024            # words a window pointer parameter may address
SLOT_GRIDS = W        # every grid adds 1 (its thread 0)
SLOT_SEEN = W + 1     # the counting leaf adds 1 per thread; the tail observer reads it
SLOT_CURSOR = W + 2   # the log's next free entry
LOG_BASE = W + 3
IN = 257              # input ints per case (read-only, for data-dependent decisions)

# Parameter and struct member types, with weights: sizes 1 to 16 bytes, alignments 1 to 16.
SCALAR_KINDS = [("u32", 3), ("i32", 2), ("i64", 1), ("i16", 1), ("i8", 1), ("b1", 0.5), ("f32", 1),
                ("f64", 1), ("f2", 0.5), ("v4", 0.5)]
# How a kernel hashes a value of each kind (fz_int for the rest).
HASH_FN = {"f32": "fz_f32", "f64": "fz_f64", "f2": "fz_f2", "v4": "fz_v4"}

MAX_LAUNCHES = 2000   # device launches per case, descendants included (the pending limit is 32768)
MAX_LOG = 16384       # log entries per case


def mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


class Rng:
    """splitmix64: the same stream on every Python version (random.Random's methods may change)."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        return mix64(self.state)

    def below(self, n):
        return self.next() % n

    def chance(self, p):
        return self.below(1 << 20) < int(p * (1 << 20))

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def weighted(self, pairs):
        total = sum(w for _, w in pairs)
        r = self.below(int(total * 1000)) / 1000.0
        for item, w in pairs:
            if r < w:
                return item
            r -= w
        return pairs[-1][0]


# ---------------------------------------------------------------------------------------------
# The model of one case


class Param:
    def __init__(self, kind, name, struct=None):
        self.kind = kind      # a SCALAR_KINDS kind, struct, window, depth, extra, len or rep
        self.name = name
        self.struct = struct

    def ctype(self):
        return {
            "u32": "unsigned", "i32": "int", "i64": "long long", "i16": "short", "i8": "char",
            "b1": "bool", "f32": "float", "f64": "double", "f2": "float2", "v4": "int4",
            "window": "unsigned long long *", "depth": "int",
            "extra": "unsigned", "len": "unsigned", "rep": "unsigned",
        }.get(self.kind) or self.struct.name


class Struct:
    def __init__(self, name, members):
        self.name = name
        self.members = members  # (kind, name, count): count > 1 is an array member


class Dim:
    """A grid or block configuration: its source text and upper bounds."""

    def __init__(self, text, xmax, ymax=1, zmax=1, ndim=None):
        self.text = text
        self.xmax, self.ymax, self.zmax = xmax, ymax, zmax
        self.ndim = ndim or (3 if zmax > 1 else 2 if ymax > 1 else 1)

    def total(self):
        return self.xmax * self.ymax * self.zmax

    def rows(self):
        return self.ymax * self.zmax


class Kernel:
    def __init__(self, name, work):
        self.name = name
        self.work = work          # atomic sync warp reduce stride count observe
        self.params = []
        self.body = []
        self.max_block = 256      # most threads per block a launch of it may give
        self.inline_index = False
        self.group = None         # recursion group (list of kernels) or None
        self.depth_limit = 0
        self.pre_return = None    # an early return before the kernel's own work
        self.bounded = False      # a reduce leaf whose threads at or past its parameter n reduce nothing
        self.salt = 0
        # Bounds over every configuration it is launched with (filled in by bound_shapes).
        self.max_threads = 0
        self.max_blocks = 0
        self.max_rows = 0

    def param(self, kind):
        for p in self.params:
            if p.kind == kind:
                return p
        return None


class DevFn:
    def __init__(self, name, caller):
        self.name = name
        self.callers = [caller]  # the kernels whose code calls it (directly or through others)
        self.body = []


class Launch:
    def __init__(self, child, grid, block, stream, args, extra=None, depth_gate=None):
        self.child, self.grid, self.block, self.stream, self.args = child, grid, block, stream, args
        self.extra = extra            # sync children: the expression of their extra shared words
        self.smem = None              # other children: a dynamic shared memory size, unused
        self.depth_gate = depth_gate  # recursive launches: the depth below which they are made
        self.braced = False


class If:
    def __init__(self, cond, cap, then, els=None):
        self.cond, self.cap, self.then, self.els = cond, cap, then, els or []


class For:
    def __init__(self, var, trip, trip_max, body, skip=None, form="for", stream=False):
        self.var, self.trip, self.trip_max, self.body = var, trip, trip_max, body
        self.skip = skip      # a continue (form for) or break condition
        self.form = form      # for, while
        self.stream = stream  # a created stream shared by the loop's launches


class Call:
    def __init__(self, fn, varg):
        self.fn, self.varg = fn, varg


class Return:
    def __init__(self, cond):
        self.cond = cond


class Barrier:
    pass


class RuntimeObject:
    """A device-runtime stream or event made and freed again, unused: calls in the device runtime beside
    launches klap transforms (KLAP323's case)."""
    def __init__(self, kind):
        self.kind = kind


def launch_targets(stmts):
    """Every kernel a statement list launches, through the device functions it calls too."""
    out = []
    for s in stmts:
        if isinstance(s, Launch):
            out.append(s.child)
        elif isinstance(s, If):
            out += launch_targets(s.then) + launch_targets(s.els)
        elif isinstance(s, For):
            out += launch_targets(s.body)
        elif isinstance(s, Call):
            out += launch_targets(s.fn.body)
    return out


def called_fns(stmts):
    """Every device function a statement list calls, directly or through others."""
    out = []
    for s in stmts:
        if isinstance(s, If):
            out += called_fns(s.then) + called_fns(s.els)
        elif isinstance(s, For):
            out += called_fns(s.body)
        elif isinstance(s, Call):
            out += [s.fn] + called_fns(s.fn.body)
    return out


# A condition's cap says how many threads of a grid can pass it, as a function of the kernel's
# bounds; None means any number.
def cap_threads(kernel, cap):
    if cap is None:
        return kernel.max_threads
    kind, n = cap
    if kind == "lone":       # one thread per row of each block
        return min(kernel.max_threads, kernel.max_rows)
    if kind == "block":      # the first n threads of each block
        return min(kernel.max_threads, kernel.max_blocks * n)
    if kind == "grid":       # the first n threads of the grid
        return min(kernel.max_threads, n)
    raise ValueError(kind)


def tighter(a, b, kernel):
    if a is None:
        return b
    if b is None:
        return a
    return a if cap_threads(kernel, a) <= cap_threads(kernel, b) else b


class Case:
    def __init__(self, seed, index):
        self.seed, self.index = seed, index
        self.ns = "c%d" % index
        self.structs = []
        self.kernels = []    # in definition order: leaves first, root last
        self.devfns = []
        self.root = None
        self.root_grid = None
        self.root_block = None
        self.root_extra = None
        self.root_args = []
        self.reps = 1
        self.log_cap = 0
        self.launch_bound = 0
        self.in_seed = 0


# ---------------------------------------------------------------------------------------------
# Generation


class Gen:
    def __init__(self, rng, case):
        self.r = rng
        self.c = case
        self.names = 0

    def fresh(self, prefix):
        self.names += 1
        return "%s%d" % (prefix, self.names)

    # Expressions. Every one has type unsigned. `env` names what a site may read:
    # 'vary' (per-thread values), 'uni' (uniform over the grid).
    def atom(self, env, uniform):
        r = self.r
        if uniform or not env["vary"]:
            pool = list(env["uni"]) + ["%du" % r.below(1000)]
            return r.pick(pool)
        choice = r.below(10)
        if choice < 4:
            return r.pick(env["vary"])
        if choice < 6:
            return "(unsigned)in[(%s * %du + %du) %% %du]" % (r.pick(env["vary"]), 1 + r.below(13),
                                                             r.below(50), IN)
        if choice < 8 and env["uni"]:
            return r.pick(env["uni"])
        return r.pick(["threadIdx.x", "blockIdx.x", "threadIdx.y"] if env["kernel"] else env["vary"])

    def expr(self, env, uniform=False):
        r = self.r
        a = self.atom(env, uniform)
        form = r.below(5)
        if form == 0:
            return a
        if form == 1:
            return "(%s * %du + %du)" % (a, 1 + 2 * r.below(20), r.below(100))
        if form == 2:
            return "(%s ^ 0x%xu)" % (a, r.below(1 << 16))
        if form == 3:
            return "(%s + %s)" % (a, self.atom(env, uniform))
        return "(%s >> %du)" % (a, r.below(4))

    def value(self, p, env, uniform, parent):
        """The argument for parameter p at a launch site."""
        r = self.r
        e = self.expr(env, uniform)
        k = p.kind
        if k == "u32":
            return e
        if k == "i32":
            return "(int)(%s - %du)" % (e, r.below(500))
        if k == "i64":
            return "((long long)%s << %d) - %d" % (e, 1 + r.below(30), r.below(9))
        if k == "i16":
            return "(short)%s" % e
        if k == "i8":
            return "(char)%s" % e
        if k == "f32":
            return "(float)(%s %% 4096u) * 0.25f" % e
        if k == "f64":
            return "(double)%s * 0.5 - 3.0" % e
        if k == "b1":
            return "(%s & 1u) != 0u" % e
        if k == "f2":
            return "make_float2((float)(%s %% 4096u) * 0.5f, (float)(%s %% 4096u) * 0.25f)" % (
                e, self.expr(env, uniform))
        if k == "v4":
            return "make_int4((int)%s, (int)%s, (int)%s, (int)%s)" % (
                e, self.expr(env, uniform), self.expr(env, uniform), self.expr(env, uniform))
        if k == "window":
            return "out + %s %% %du" % (e, W - WIN)
        if k == "len":
            return "%s %% 700u + 1u" % e
        if k == "struct":
            same = parent.param("struct") if parent is not None and env["kernel"] else None
            if same is not None and same.struct is p.struct and r.chance(0.5):
                return same.name
            parts = []
            for mkind, _, count in p.struct.members:
                vals = [self.value(Param(mkind, "m"), env, uniform and r.chance(0.7), None)
                        for _ in range(count)]
                parts.append("{%s}" % ", ".join(vals) if count > 1 else vals[0])
            return "%s{%s}" % (p.struct.name, ", ".join(parts))
        raise ValueError(k)

    # Launch configurations.
    def dim_grid(self, env, child):
        r = self.r
        most = 2 if child.group else 4
        shape = r.weighted([(1, 6), (2, 2), (3, 1)]) if not child.group else 1
        if shape == 1:
            if r.chance(0.5):
                n = 1 + r.below(most)
                return Dim("%d" % n, n)
            return Dim("1u + %s %% %du" % (self.expr(env, r.chance(0.2)), most), most)
        dims = [1 + r.below(2) for _ in range(shape)]
        parts = []
        for d in dims:
            if d > 1 and r.chance(0.5):
                parts.append("1u + %s %% %du" % (self.expr(env), d))
            else:
                parts.append("%du" % d)
        return Dim("dim3(%s)" % ", ".join(parts), *dims, ndim=shape)

    def dim_block(self, env, child):
        r = self.r
        cap = min(child.max_block, 64 if child.group else 256)
        if child.work == "reduce":
            # Whole warps only: its reductions are over the whole warp.
            options = [Dim("%d" % x, x) for x in (32, 64, 96, 128, 256) if x <= cap]
            options.append(Dim("dim3(32, 2)", 32, 2, ndim=2))
            if r.chance(0.25):
                return Dim("32u * (1u + %s %% 3u)" % self.expr(env), 96)
            return r.pick(options)
        options = []
        for x in (1, 7, 32, 33, 64, 96, 128, 256):
            if x <= cap:
                options.append(Dim("%d" % x, x))
        for (x, y) in ((8, 4), (16, 2), (5, 3), (32, 2), (4, 4)):
            if x * y <= cap:
                options.append(Dim("dim3(%d, %d)" % (x, y), x, y, ndim=2))
        for (x, y, z) in ((4, 2, 2), (2, 3, 5), (8, 2, 2), (1, 1, 32), (3, 3, 3)):
            if x * y * z <= cap:
                options.append(Dim("dim3(%d, %d, %d)" % (x, y, z), x, y, z, ndim=3))
        if cap >= 96 and r.chance(0.25):
            return Dim("32u * (1u + %s %% 3u)" % self.expr(env), 96)
        if cap >= 64 and r.chance(0.1):
            return Dim("(%s & 1u) ? 64u : 33u" % self.expr(env), 64)
        return r.pick(options)

    def launch(self, env, child, parent, in_group):
        r = self.r
        streams = [("omit", 3), ("null", 1), ("faf", 2), ("tail", 1), ("created", 1)]
        if self.c.seed >= PER_THREAD_STREAM_SEEDS:
            streams.append(("perthread", 0.4))
        if child.work == "count":
            streams = [s for s in streams if s[0] != "tail"]
        if child.work == "observe":
            streams = [("tail", 1)]
        stream = r.weighted(streams)
        if stream == "created" and env.get("loop_stream"):
            stream = "loop"
        uniform_args = r.chance(0.4)
        args = []
        for p in child.params:
            if p.kind == "depth":
                args.append("depth + 1" if in_group else "0")
            elif p.kind == "extra":
                args.append("fz_x")
            else:
                args.append(self.value(p, env, uniform_args or r.chance(0.3), parent))
        site = Launch(child, self.dim_grid(env, child), self.dim_block(env, child), stream, args)
        if child.work == "sync":
            site.extra = "%s %% 33u" % self.expr(env, uniform_args)
        elif r.chance(0.2):
            site.smem = r.pick(["%du" % (8 * r.below(512)), "(%s %% 64u) * 16u" % self.expr(env)])
        site.braced = r.chance(0.5)
        if in_group:
            site.depth_gate = child.depth_limit
        return site

    # Conditions: (text, cap).
    def cond(self, env, in_kernel):
        r = self.r
        v = r.pick(env["vary"]) if env["vary"] else "0u"
        forms = [
            ("(%s %% %du) == %du" % (v, 2 + r.below(6), r.below(2)), None, 3),
            ("((unsigned)in[(%s * 5u + %du) %% %du] %% 3u) == 0u" % (v, r.below(9), IN), None, 2),
            ("(%s & %du) != 0u" % (v, 1 << r.below(4)), None, 1),
        ]
        if in_kernel:
            c = 1 + r.below(40)
            forms += [
                ("g < %du" % c, ("grid", c), 1),
                ("fz_tid%s() < %du" % (env["ix"], c), ("block", c), 1),
                ("threadIdx.x == 0", ("lone", 0), 1.5),
                ("threadIdx.x == blockDim.x - 1", ("lone", 0), 0.5),
                ("threadIdx.x == 0 && threadIdx.y == 0", ("lone", 0), 0.5),
                ("blockIdx.x %% 2u == %du" % r.below(2), None, 0.5),
            ]
        if env["uni"]:
            forms.append(("(%s & 1u) == 0u" % r.pick(env["uni"]), None, 0.7))
        text, cap = r.weighted([((t, c), w) for t, c, w in forms])
        return text, cap

    def block(self, env, kernel, sites, depth, in_kernel, top):
        """A statement list holding about `sites` launch sites."""
        r = self.r
        out = []
        returned = False
        while sites > 0:
            nest = 1 if depth < 3 else 0
            form = r.weighted([("launch", 4), ("if", 2 * nest), ("ifelse", nest), ("for", 2 if depth < 2 else 0),
                               ("call", (1.2 if in_kernel else 0.3) if depth < 2 and env["children"] else 0),
                               ("ret", 0.5 if top and not returned else 0),
                               ("barrier", 0.4 if top and in_kernel and env["can_sync"] and not returned else 0),
                               ("object", runtime_object_weight(self.c.seed))])
            if form == "launch":
                out.append(self.launch(env, r.pick(env["children"]), kernel, False))
                sites -= 1
            elif form in ("if", "ifelse"):
                text, cap = self.cond(env, in_kernel)
                n = 1 + r.below(min(2, sites))
                then = self.block(env, kernel, n, depth + 1, in_kernel, False)
                els = []
                if form == "ifelse" and cap is None:
                    els = self.block(env, kernel, 1, depth + 1, in_kernel, False)
                    sites -= 1
                out.append(If(text, cap, then, els))
                sites -= n
            elif form == "for":
                var = "k%d" % depth
                trip_max = 1 + r.below(3)
                trip = r.pick([
                    "%du" % trip_max,
                    "(unsigned)in[(%s + %du) %% %du] %% %du" % (r.pick(env["vary"]) if env["vary"] else "0u",
                                                               r.below(99), IN, trip_max + 1),
                    "%s %% %du" % (r.pick(env["vary"]) if env["vary"] else "0u", trip_max + 1),
                    "1u + (%s & 1u)" % (r.pick(env["vary"]) if env["vary"] else "0u"),
                ])
                if trip.startswith("1u + ("):
                    trip_max = 2
                if env["uni"] and r.chance(0.15):
                    trip = "%s %% %du" % (r.pick(env["uni"]), trip_max + 1)
                inner = dict(env)
                inner["vary"] = env["vary"] + [var]
                loop = For(var, trip, trip_max, None)
                loop.form = "while" if r.chance(0.2) else "for"
                loop.stream = in_kernel and r.chance(0.2) and not env.get("loop_stream")
                if loop.stream:
                    inner["loop_stream"] = True
                loop.body = self.block(inner, kernel, 1 + r.below(min(2, sites)), depth + 1,
                                       in_kernel, False)
                if loop.form == "for" and r.chance(0.3):
                    loop.skip = ("continue", "((%s + %s) %% 3u) == 1u" % (var, r.pick(env["vary"])))
                elif r.chance(0.2):
                    loop.skip = ("break", "%s + (%s %% 3u) == 2u" % (var, r.pick(env["vary"])))
                out.append(loop)
                sites -= 1
            elif form == "call":
                # Now and then a device function another kernel calls too, where everything it
                # launches may be launched from here (no cycle, no other kernel's tail-launch check).
                shared = [f for f in self.c.devfns if kernel not in f.callers
                          and all(t in env["children"] for t in launch_targets(f.body))]
                if shared and r.chance(0.5):
                    fn = r.pick(shared)
                    for f in [fn] + called_fns(fn.body):
                        f.callers.append(kernel)
                else:
                    fn = self.devfn(env, kernel)
                varg = self.expr(env)
                out.append(Call(fn, varg))
                sites -= 1
            elif form == "ret":
                text, _ = self.cond(env, in_kernel)
                if in_kernel and r.chance(0.3):
                    # The lone-launcher idiom: what follows runs in one thread per row.
                    text = "threadIdx.x != 0"
                out.append(Return(text))
                returned = True
            elif form == "barrier":
                out.append(Barrier())
            elif form == "object":
                out.append(RuntimeObject(r.pick(["event", "stream"])))
        return out

    def devfn(self, env, kernel):
        fn = DevFn(self.fresh("f"), kernel)
        fenv = {"vary": ["(unsigned)g", "v"], "uni": ["u"], "children": env["children"], "kernel": False,
                "ix": env["ix"]}
        fn.body = self.block(fenv, kernel, 1 + self.r.below(2), 1, False, True)
        self.c.devfns.append(fn)
        return fn

    # Kernels.
    def scalar_params(self, kernel, n):
        for _ in range(n):
            kind = self.r.weighted(SCALAR_KINDS)
            kernel.params.append(Param(kind, self.fresh("p")))
        if self.c.structs and self.r.chance(0.4):
            kernel.params.insert(self.r.below(len(kernel.params) + 1),
                                 Param("struct", self.fresh("s"), self.r.pick(self.c.structs)))
        if self.r.chance(0.25):
            kernel.params.insert(self.r.below(len(kernel.params) + 1), Param("window", self.fresh("w")))

    def kernel(self, name, work):
        k = Kernel(name, work)
        k.salt = self.r.below(1 << 30)
        k.inline_index = self.r.chance(0.35)
        if work == "sync":
            k.max_block = self.r.pick([64, 128, 256])
            k.params.append(Param("extra", "x"))
        if work == "stride":
            k.params.append(Param("len", "n"))
        if work == "reduce" and self.c.seed >= BOUNDED_REDUCE_SEEDS and self.r.chance(0.5):
            # Threads at or past n give every reduction its neutral value (KLAP321's bound).
            k.params.append(Param("len", "n"))
            k.bounded = True
        self.scalar_params(k, self.r.below(4))
        if work in ("atomic", "stride", "count", "observe") and self.r.chance(0.2):
            k.pre_return = self.r.pick(["g %% %du == %du" % (3 + self.r.below(5), self.r.below(3)),
                                        "(unsigned)in[g %% %du] %% 4u == 0u" % IN])
        if work in ("sync", "warp", "reduce") and self.r.chance(0.15):
            k.pre_return = "blockIdx.x == 1u"  # a whole block leaves: its barriers stay uniform
        return k

    def env_of(self, kernel, children):
        uni = ["u"]
        if kernel.group:
            uni.append("(unsigned)depth")
        # A barrier is only for kernels whose threads all get past their own work.
        can_sync = kernel.pre_return is None or kernel.pre_return.startswith("blockIdx")
        return {"vary": ["(unsigned)g"], "uni": uni, "children": children, "kernel": True,
                "ix": "_inl" if kernel.inline_index else "", "can_sync": can_sync}

    def generate(self):
        r, c = self.r, self.c
        c.in_seed = r.next()
        for _ in range(r.below(3)):
            members = []
            for _ in range(2 + r.below(4)):
                members.append((r.weighted(SCALAR_KINDS),
                                self.fresh("m"), 1 if r.chance(0.8) else 2 + r.below(3)))
            c.structs.append(Struct(self.fresh("S"), members))

        leaves = []
        for _ in range(1 + r.below(3)):
            work = r.weighted([("atomic", 4), ("sync", 2), ("warp", 1.5), ("reduce", 1.5), ("stride", 1.5)])
            leaves.append(self.kernel(self.fresh("leaf"), work))
        c.kernels += leaves

        group = []
        root_recursive = False
        if r.chance(0.35):
            size = 1 if r.chance(0.75) else 2
            for _ in range(size):
                k = self.kernel(self.fresh("rec"), "atomic")
                k.params.insert(0, Param("depth", "depth"))
                k.max_block = 64
                k.depth_limit = 1 + r.below(3)
                group.append(k)
            for k in group:
                k.group = group
                k.depth_limit = group[0].depth_limit
            root_recursive = r.chance(0.25)

        counting = None
        if not root_recursive and r.chance(0.3):
            counting = (self.kernel(self.fresh("count"), "count"), self.kernel(self.fresh("observe"), "observe"))
            c.kernels += counting

        # Mids launch the recursion's entry, or (under a recursive root) the recursion launches
        # mids: never both, or a mid would start the recursion over at depth 0.
        mids = []
        for _ in range(r.below(3)):
            k = self.kernel(self.fresh("mid"), r.weighted([("atomic", 4), ("sync", 1), ("warp", 1)]))
            below = group[:1] if group and not root_recursive and r.chance(0.5) else []
            k.body = self.block(self.env_of(k, leaves + mids + below), k, 1 + r.below(3), 0, True, True)
            mids.append(k)

        for i, k in enumerate(group):
            nxt = group[(i + 1) % len(group)]
            env = self.env_of(k, leaves + (mids if root_recursive else []))
            fan = 1 + r.below(2)
            gate, cap = "fz_tid%s() < %du" % (env["ix"], fan), ("block", fan)
            if r.chance(0.4):
                gate, cap = "threadIdx.x == 0", ("lone", 0)
            body = [If(gate, cap, [self.launch(env, nxt, k, True)])]
            if r.chance(0.6):
                body += self.block(env, k, 1, 1, True, False)
            k.body = body
        c.kernels += group + mids

        if root_recursive:
            root = group[0]
        else:
            root = self.kernel(self.fresh("root"), r.weighted([("atomic", 5), ("sync", 1), ("warp", 1)]))
            root.params.insert(0, Param("rep", "rep"))
            root.max_block = 256
            children = leaves + mids + group[:1]
            if counting:
                children = children + list(counting)
            # More than four (child, stream) groups now and then: the fifth has no block scope.
            sites = 1 + r.below(4) if r.chance(0.85) else 5 + r.below(2)
            env = self.env_of(root, children)
            env["uni"].append("rep")
            root.body = self.block(env, root, sites, 0, True, True)
            if counting:
                # Both ends of the tail-launch check, made by the root itself.
                root.body.append(self.launch(env, counting[0], root, False))
                root.body.append(self.launch(env, counting[1], root, False))
            c.kernels.append(root)
        c.root = root
        self.root_config(root)
        c.reps = 1 + (r.below(3) if r.chance(0.3) else 0)

    def root_config(self, root):
        r, c = self.r, self.c
        gshape = r.weighted([(1, 6), (2, 2), (3, 1)])
        gx = 1 + r.below(4)
        if gshape == 1:
            c.root_grid = Dim("%d" % gx, gx)
        elif gshape == 2:
            gy = 1 + r.below(2)
            c.root_grid = Dim("dim3(%d, %d)" % (gx, gy), gx, gy)
        else:
            c.root_grid = Dim("dim3(%d, 1, 2)" % gx, gx, 1, 2)
        cap = 64 if root.group else root.max_block
        choices = [b for b in ((32, 1, 1), (64, 1, 1), (96, 1, 1), (128, 1, 1), (47, 1, 1), (16, 4, 1),
                               (8, 8, 1), (8, 4, 2), (4, 4, 4)) if b[0] * b[1] * b[2] <= cap]
        bx, by, bz = r.pick(choices)
        c.root_block = Dim("dim3(%d, %d, %d)" % (bx, by, bz), bx, by, bz)
        env = {"vary": [], "uni": [], "kernel": False}
        if root.work == "sync":
            c.root_extra = r.below(33)
        for p in root.params:
            if p.kind == "rep":
                c.root_args.append("rep")
            elif p.kind == "depth":
                c.root_args.append("0")
            elif p.kind == "extra":
                c.root_args.append("%du" % c.root_extra)
            else:
                c.root_args.append(self.value(p, env, True, None).replace("out +", "x.out +"))


# ---------------------------------------------------------------------------------------------
# Bounds: how many launches a case makes at most, and how many log entries.


def walk_sites(stmts, mult, cap, kernel, visit):
    for s in stmts:
        if isinstance(s, Launch):
            visit(s, mult * cap_threads(kernel, cap))
        elif isinstance(s, If):
            walk_sites(s.then, mult, tighter(cap, s.cap, kernel), kernel, visit)
            walk_sites(s.els, mult, cap, kernel, visit)
        elif isinstance(s, For):
            walk_sites(s.body, mult * s.trip_max, cap, kernel, visit)
        elif isinstance(s, Call):
            walk_sites(s.fn.body, mult, cap, kernel, visit)
        elif isinstance(s, Return) and s.cond == "threadIdx.x != 0":
            cap = tighter(cap, ("lone", 0), kernel)


def bound_shapes(case):
    """Each kernel's largest grid, block count and row count over every launch of it."""
    for k in case.kernels:
        k.max_threads = k.max_blocks = k.max_rows = 0
    root = case.root
    root.max_blocks = case.root_grid.total()
    root.max_threads = root.max_blocks * case.root_block.total()
    root.max_rows = root.max_blocks * case.root_block.rows()

    def widen(site, _n):
        ch = site.child
        blocks = site.grid.total()
        ch.max_blocks = max(ch.max_blocks, blocks)
        ch.max_threads = max(ch.max_threads, blocks * site.block.total())
        ch.max_rows = max(ch.max_rows, blocks * site.block.rows())

    for k in case.kernels:
        walk_sites(k.body, 1, None, k, widen)


def launch_counts(case):
    """Upper bounds on the grids of each kernel in one run of the root, and in all."""
    grids = {}

    def run(kernel, depth, times):
        grids[kernel.name] = grids.get(kernel.name, 0) + times
        if sum(grids.values()) > 50 * MAX_LAUNCHES:
            return

        def visit(site, n):
            ch = site.child
            if site.depth_gate is not None:
                if depth >= site.depth_gate:
                    return
                run(ch, depth + 1, times * n)
            else:
                run(ch, 0, times * n)

        walk_sites(kernel.body, 1, None, kernel, visit)

    run(case.root, 0, case.reps)
    return grids


def finish_case(case):
    bound_shapes(case)
    grids = launch_counts(case)
    case.launch_bound = sum(grids.values()) - case.reps
    blocks = 0
    for k in case.kernels:
        if k.work == "sync":
            blocks += grids.get(k.name, 0) * k.max_blocks
    case.log_cap = blocks
    if case.launch_bound > MAX_LAUNCHES or blocks > MAX_LOG:
        return False
    # Kernels no launch reaches would only cost compile time.
    case.kernels = [k for k in case.kernels if k.name in grids]
    case.devfns = [f for f in case.devfns if any(k.name in grids for k in f.callers)]
    case.structs = [st for st in case.structs if any(p.struct is st for k in case.kernels for p in k.params)]
    return True


# From this seed on, one case in six is a chain of one-block links (ChainCase): the shape kernel launch
# promotion takes. Earlier seeds generate what they always did, so their case ids stay reproducible.
CHAIN_SEEDS = 400
# From this seed on, a chain may also read its input to the exact end of the input's allocation (the last one
# the program makes, so that a read past it is one compute-sanitizer reports) and may end its last link with an
# early return above a join (a launch condition its test alone does not give: a link must not run its prologue
# for a successor that the chain as written never launches).
CHAIN_SHAPES_SEEDS = 2800
BOUNDED_REDUCE_SEEDS = 3100  # from here on half the reduce leaves bound their threads by a parameter
RUNTIME_OBJECT_SEEDS = 3500  # from here on a statement may make and free a device-runtime stream or event
RARER_RUNTIME_OBJECT_SEEDS = 3600  # from here on less often: a kernel making one serializes nothing (KLAP323)
# From here on a launch may go into cudaStreamPerThread, which klap leaves as written (KLAP201): beside
# serialized children in the same warp such a launch hung (thirty-third session, by hand).
PER_THREAD_STREAM_SEEDS = 3700


def runtime_object_weight(seed):
    """How often a statement makes and frees a device-runtime object. At 0.6 (seeds 3500-3599) seeds
    3501-3504 had 121 serialization remarks (KLAP300) at `auto` where 3401-3404 had 193; at 0.15, 3601-3604
    have 191."""
    if seed >= RARER_RUNTIME_OBJECT_SEEDS:
        return 0.15
    return 0.6 if seed >= RUNTIME_OBJECT_SEEDS else 0


# gen.py's exit status where --chains-only finds no chain case (fuzz/build.sh then builds no program).
NO_CHAIN_CASE = 3


class ChainCase:
    """A one-block kernel that processes a chunk of the input and, from thread 0 at its end, launches itself for
    the next chunk with a carried value: KLAP's promotion shape (examples/PROMOTION.md), with the choices
    promotion's detection and its overlap analysis look at drawn at random: the stream (fire-and-forget, tail,
    NULL), the carried value's type, a launch condition known at the start or one computed by the work
    (speculative), a `__restrict__` input or not, the programmer's prologue mark or not, the block size, the
    chunk and the chain's length. Every thread adds hashes of what it computed to the output; the chain's result
    depends on every link running once, in order, with the right carried value."""

    def __init__(self, seed, index, rng):
        self.seed, self.index = seed, index
        self.ns = "c%d" % index
        self.kernels, self.devfns = [], []
        self.log_cap = 0
        self.block = rng.pick([32, 64, 128, 256])
        self.chunk = self.block * rng.pick([1, 2, 3])
        self.links = rng.pick([1, 2, 3, 5, 9, 40, 130, 300])
        self.n = self.chunk * (self.links - 1) + 1 + rng.below(self.chunk)
        self.stream = rng.pick(["cudaStreamFireAndForget", "cudaStreamTailLaunch", "0"])
        self.carry = rng.pick(["int", "long long", "float"])
        self.restrict = not rng.chance(0.25)
        self.mark = rng.chance(0.25)
        self.speculative = rng.chance(0.25)
        self.exact = self.early_end = False
        if seed >= CHAIN_SHAPES_SEEDS:
            self.exact = rng.chance(0.5)
            self.early_end = rng.chance(0.5)
            if self.exact:
                # The input holds IN ints: a short chain that reads the last n of them.
                while self.n > IN and self.links > 1:
                    self.links -= 1
                    self.n = self.chunk * (self.links - 1) + 1 + rng.below(self.chunk)
                if self.n > IN:
                    self.n = IN
        self.launch_bound = self.links

    def emit(self):
        c = self
        restrict = "__restrict__ " if c.restrict else ""
        mark = '  asm volatile("// klap_prologue_end" ::: "memory");\n' if c.mark else ""
        # The speculative condition reads the work's result; it holds for every link but the last (the total is
        # never negative), so the chain's length is the same either way.
        cond = "end < n && total >= 0" if c.speculative else "end < n"
        in_index = "FZ_IN - n + i" if c.exact else "i % FZ_IN"
        # Exact: every thread also reads the chunk's first element without a test of its own, safe only
        # because no link is launched for a chunk past the end.
        head = "  local += in[FZ_IN - n + first] & 1;\n" if c.exact else ""
        # The last link returns here; the others take one of two paths that join before the launch (their
        # shapes differ, so that the compiler keeps the join).
        early_end = ("  if (end >= n) {\n"
                     "    fz_put(out, fz_mix((unsigned long long)local ^ 0x5bd1e995ull));\n"
                     "    return;\n"
                     "  }\n"
                     "  if (local & 1) {\n"
                     "    fz_put(out, fz_mix((unsigned long long)local + 1));\n"
                     "  } else {\n"
                     "    for (int k = 0; k < 2; ++k) fz_put(out, fz_mix((unsigned long long)local * 3 + k));\n"
                     "  }\n") if c.early_end else ""
        return ("namespace %(ns)s {\n"
                "constexpr unsigned long long WORDS = FZ_LOG + 1;\n"
                "__global__ void chain(const int *%(restrict)sin, unsigned long long *out, int n, int chunk, int first, %(carry)s carried) {\n"
                "  __shared__ long long part[%(block)d];\n"
                "  const int end = min(n, first + chunk);\n"
                "  long long local = 0;\n"
                "  for (int i = first + (int)threadIdx.x; i < end; i += %(block)d) local += in[%(in_index)s] + 1;\n"
                "%(head)s"
                "  part[threadIdx.x] = local;\n"
                "  __syncthreads();\n"
                "  for (int s = %(block)d / 2; s > 0; s /= 2) {\n"
                "    if ((int)threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];\n"
                "    __syncthreads();\n"
                "  }\n"
                "  const long long total = part[0];\n"
                "%(mark)s"
                "  fz_put(out, fz_mix(fz_f64((double)carried) ^ (unsigned long long)(first + (int)threadIdx.x) ^ (unsigned long long)local << 20));\n"
                "%(early_end)s"
                "  if (threadIdx.x == 0) {\n"
                "    atomicAdd(&out[FZ_GRIDS], 1ull);\n"
                "    if (%(cond)s)\n"
                "      chain<<<1, %(block)d, 0, %(stream)s>>>(in, out, n, chunk, end, (%(carry)s)(carried + (%(carry)s)(total %% 1000) + 1));\n"
                "  }\n"
                "}\n"
                "void run(FzCtx &x) {\n"
                "  fz_clear(x, WORDS);\n"
                "  fz_fill_in(x, %(in_seed)dull);\n"
                "  chain<<<1, %(block)d>>>(x.in, x.out, %(n)d, %(chunk)d, 0, (%(carry)s)0);\n"
                "  fz_finish(x, \"%(seed)d-%(index)d\", WORDS, 0);\n"
                "}\n"
                "}  // namespace %(ns)s\n") % dict(ns=c.ns, restrict=restrict, carry=c.carry, block=c.block, mark=mark,
                                                   cond=cond, stream=c.stream, n=c.n, chunk=c.chunk, seed=c.seed, in_index=in_index, head=head, early_end=early_end,
                                                   index=c.index, in_seed=mix64(c.seed * 1000003 + c.index) % 1000000)


def make_case(seed, index):
    base = mix64((seed << 24) ^ index)
    if seed >= CHAIN_SEEDS and base % 6 == 0:
        return ChainCase(seed, index, Rng(base))
    for attempt in range(1000):
        case = Case(seed, index)
        Gen(Rng(base + attempt), case).generate()
        if finish_case(case):
            return case
    raise RuntimeError("no case within the launch budget for seed %d case %d" % (seed, index))


# ---------------------------------------------------------------------------------------------
# Emission


PRELUDE = r"""// Generated by fuzz/gen.py: do not edit. Every case prints one line, the same in every build.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define FZ_W %(W)du
#define FZ_WIN %(WIN)du
#define FZ_IN %(IN)du
#define FZ_GRIDS %(GRIDS)du
#define FZ_SEEN %(SEEN)du
#define FZ_CURSOR %(CURSOR)du
#define FZ_LOG %(LOG)du

__host__ __device__ __forceinline__ unsigned long long fz_mix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Index registers, read in device functions of their own (kept out of line, and inlined).
__device__ __noinline__ unsigned fz_tid() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ __noinline__ unsigned fz_bid() {
  return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}
__device__ __noinline__ unsigned fz_bthreads() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ __noinline__ unsigned long long fz_gtid() {
  return (unsigned long long)fz_bid() * fz_bthreads() + fz_tid();
}
__device__ __noinline__ unsigned long long fz_gthreads() {
  return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * fz_bthreads();
}
__device__ __noinline__ unsigned long long fz_idx() {
  unsigned long long h = fz_mix(threadIdx.x | (unsigned long long)threadIdx.y << 20 |
                                (unsigned long long)threadIdx.z << 40);
  h = fz_mix(h ^ (blockIdx.x | (unsigned long long)blockIdx.y << 20 | (unsigned long long)blockIdx.z << 40));
  h = fz_mix(h ^ (blockDim.x | (unsigned long long)blockDim.y << 20 | (unsigned long long)blockDim.z << 40));
  return fz_mix(h ^ (gridDim.x | (unsigned long long)gridDim.y << 20 | (unsigned long long)gridDim.z << 40));
}
__device__ __forceinline__ unsigned fz_tid_inl() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ unsigned fz_bthreads_inl() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ __forceinline__ unsigned long long fz_gtid_inl() {
  unsigned b = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  return (unsigned long long)b * fz_bthreads_inl() + fz_tid_inl();
}
__device__ __forceinline__ unsigned long long fz_idx_inl() {
  unsigned long long h = fz_mix(threadIdx.x + 1000ull * threadIdx.y + 1000000ull * threadIdx.z);
  h = fz_mix(h ^ (blockIdx.x + 1000ull * blockIdx.y + 1000000ull * blockIdx.z));
  h = fz_mix(h ^ (blockDim.x + 1000ull * blockDim.y + 1000000ull * blockDim.z));
  return fz_mix(h ^ (gridDim.x + 1000ull * gridDim.y + 1000000ull * gridDim.z));
}

__device__ __forceinline__ void fz_put(unsigned long long *out, unsigned long long h) {
  atomicAdd(&out[h %% FZ_W], (h >> 32) | 1ull);
}
__device__ __forceinline__ void fz_put_win(unsigned long long *w, unsigned long long h) {
  atomicAdd(&w[h %% FZ_WIN], (h >> 33) | 1ull);
}
// The log: entries in any order (the checksum sums their hashes).
__device__ __forceinline__ void fz_log(unsigned long long *out, unsigned long long cap, unsigned long long v) {
  unsigned long long at = atomicAdd(&out[FZ_CURSOR], 1ull);
  if (at < cap)
    out[FZ_LOG + at] = v;
}
__device__ __forceinline__ unsigned long long fz_f32(float f) { return __float_as_uint(f); }
__device__ __forceinline__ unsigned long long fz_f64(double d) { return (unsigned long long)__double_as_longlong(d); }
__device__ __forceinline__ unsigned long long fz_int(long long v) { return (unsigned long long)v; }
__device__ __forceinline__ unsigned long long fz_f2(float2 f) { return fz_f32(f.x) | fz_f32(f.y) << 32; }
__device__ __forceinline__ unsigned long long fz_v4(int4 v) {
  return fz_mix(((unsigned)v.x | (unsigned long long)(unsigned)v.y << 32) ^
                fz_mix((unsigned)v.z | (unsigned long long)(unsigned)v.w << 32));
}

struct FzCtx {
  unsigned long long *out;  // device, the largest case's words
  int *in;                  // device, FZ_IN ints
  std::vector<unsigned long long> host;
  cudaEvent_t done;
  double case_timeout;
  bool lost;                // the context is gone: later cases cannot run
};

static const char *fz_ename(cudaError_t e) { return cudaGetErrorName(e); }

static void fz_fill_in(FzCtx &x, unsigned long long seed) {
  int host[FZ_IN];
  for (unsigned j = 0; j < FZ_IN; ++j)
    host[j] = (int)(fz_mix(seed ^ (0x100000001b3ull * (j + 1))) %% 1000u);
  cudaMemcpy(x.in, host, sizeof host, cudaMemcpyHostToDevice);
}

// Ends a case: waits (with a deadline: a case that hangs ends the process, as nothing else can
// run on the device then), reads the output back and prints the case's line.
static void fz_finish(FzCtx &x, const char *id, unsigned long long words, unsigned long long cap) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaEventRecord(x.done);
  if (e == cudaSuccess) {
    auto start = std::chrono::steady_clock::now();
    while ((e = cudaEventQuery(x.done)) == cudaErrorNotReady) {
      std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
      if (spent.count() > x.case_timeout) {
        std::printf("case %%s HANG\n", id);
        std::fflush(stdout);
        std::_Exit(3);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  if (e == cudaSuccess)
    e = cudaMemcpy(x.host.data(), x.out, words * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("case %%s ERROR %%s\n", id, fz_ename(e));
    cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess)
      x.lost = true;
    return;
  }
  const unsigned long long *o = x.host.data();
  unsigned long long sum = 0;
  for (unsigned long long j = 0; j < FZ_LOG; ++j)
    sum = fz_mix(sum ^ o[j]) + j;
  unsigned long long entries = o[FZ_CURSOR] < cap ? o[FZ_CURSOR] : cap;
  unsigned long long logsum = 0;
  for (unsigned long long j = 0; j < entries; ++j)
    logsum += fz_mix(o[FZ_LOG + j]);
  std::printf("case %%s %%016llx grids=%%llu%%s\n", id, fz_mix(sum ^ logsum), o[FZ_GRIDS],
              o[FZ_CURSOR] > cap ? " LOG-OVERFLOW" : "");
}

static void fz_clear(FzCtx &x, unsigned long long words) {
  cudaMemset(x.out, 0, words * sizeof(unsigned long long));
}
""" % {"W": W, "WIN": WIN, "IN": IN, "GRIDS": SLOT_GRIDS, "SEEN": SLOT_SEEN, "CURSOR": SLOT_CURSOR,
       "LOG": LOG_BASE}


class Emitter:
    def __init__(self, case):
        self.c = case
        self.lines = []
        self.temp = 0

    def put(self, depth, text):
        self.lines.append("  " * depth + text)

    def hash_param(self, p):
        k = p.kind
        if k in HASH_FN:
            return "%s(%s)" % (HASH_FN[k], p.name)
        if k == "struct":
            return "hash_%s(%s)" % (p.struct.name, p.name)
        if k == "window":
            return "(unsigned long long)(%s - out)" % p.name
        return "fz_int(%s)" % p.name

    def struct(self, s):
        self.put(0, "struct %s {" % s.name)
        for kind, name, count in s.members:
            ctype = Param(kind, name).ctype()
            self.put(1, "%s %s%s;" % (ctype, name, "[%d]" % count if count > 1 else ""))
        self.put(0, "};")
        self.put(0, "__device__ __noinline__ unsigned long long hash_%s(const %s &s) {" % (s.name, s.name))
        self.put(1, "unsigned long long h = 0x%xull;" % (mix64(len(s.members)) & 0xFFFFFFFF))
        for kind, name, count in s.members:
            fn = HASH_FN.get(kind, "fz_int")
            for j in range(count):
                self.put(1, "h = fz_mix(h ^ %s(s.%s%s));" % (fn, name, "[%d]" % j if count > 1 else ""))
        self.put(1, "return h;")
        self.put(0, "}")

    def signature(self, k):
        ps = ["unsigned long long *out", "const int *in"]
        ps += ["%s %s" % (p.ctype(), p.name) for p in k.params]
        return "void %s(%s)" % (k.name, ", ".join(ps))

    def stmts(self, stmts, depth, in_kernel, ctx):
        """Emits statements; ctx is the set of tags saying where they are (devfn, loop, branch,
        lone), written beside each launch for fuzz/remarks.py."""
        for s in stmts:
            if isinstance(s, Launch):
                self.launch(s, depth, ctx)
            elif isinstance(s, If):
                self.put(depth, "if (%s) {" % s.cond)
                inner = ctx | {"branch"} | ({"lone"} if s.cap and s.cap[0] == "lone" else set())
                self.stmts(s.then, depth + 1, in_kernel, inner)
                if s.els:
                    self.put(depth, "} else {")
                    self.stmts(s.els, depth + 1, in_kernel, ctx | {"branch"})
                self.put(depth, "}")
            elif isinstance(s, For):
                if s.stream:
                    self.put(depth, "{")
                    depth += 1
                    self.put(depth, "cudaStream_t fz_ls;")
                    self.put(depth, "cudaStreamCreateWithFlags(&fz_ls, cudaStreamNonBlocking);")
                if s.form == "for":
                    self.put(depth, "for (unsigned %s = 0; %s < %s; ++%s) {" % (s.var, s.var, s.trip, s.var))
                else:
                    self.put(depth, "{")
                    self.put(depth + 1, "unsigned %s = 0;" % s.var)
                    self.put(depth + 1, "while (%s < %s) {" % (s.var, s.trip))
                    depth += 1
                if s.skip:
                    self.put(depth + 1, "if (%s)" % s.skip[1])
                    self.put(depth + 2, "%s;" % s.skip[0])
                self.stmts(s.body, depth + 1, in_kernel, ctx | {"loop"})
                if s.form == "while":
                    self.put(depth + 1, "++%s;" % s.var)
                    self.put(depth, "}")
                    depth -= 1
                self.put(depth, "}")
                if s.stream:
                    self.put(depth, "cudaStreamDestroy(fz_ls);")
                    depth -= 1
                    self.put(depth, "}")
            elif isinstance(s, Call):
                self.put(depth, "%s(out, in, g, %s, u);" % (s.fn.name, s.varg))
            elif isinstance(s, Return):
                self.put(depth, "if (%s)" % s.cond)
                self.put(depth + 1, "return;")
                if s.cond == "threadIdx.x != 0":
                    ctx = ctx | {"lone"}
            elif isinstance(s, Barrier):
                self.put(depth, "__syncthreads();")
            elif isinstance(s, RuntimeObject):
                kind, make, free, flag = {
                    "event": ("cudaEvent_t", "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaEventDisableTiming"),
                    "stream": ("cudaStream_t", "cudaStreamCreateWithFlags", "cudaStreamDestroy", "cudaStreamNonBlocking"),
                }[s.kind]
                self.put(depth, "{")
                self.put(depth + 1, "%s fz_o;" % kind)
                self.put(depth + 1, "if (%s(&fz_o, %s) == cudaSuccess)" % (make, flag))
                self.put(depth + 2, "%s(fz_o);" % free)
                self.put(depth, "}")

    def launch(self, s, depth, ctx):
        gate = s.depth_gate is not None
        if gate:
            self.put(depth, "if (depth < %d) {" % s.depth_gate)
            depth += 1
        need_block = s.braced or s.extra or s.stream == "created"
        if need_block:
            self.put(depth, "{")
            depth += 1
        grid, block = s.grid.text, s.block.text
        if s.braced or s.extra:
            self.put(depth, "const dim3 fz_g(%s);" % grid)
            self.put(depth, "const dim3 fz_b(%s);" % block)
            grid, block = "fz_g", "fz_b"
        smem = s.smem
        if s.extra:
            self.put(depth, "const unsigned fz_x = %s;" % s.extra)
            if block == "fz_b":
                self.put(depth, "const size_t fz_sm = (fz_b.x * fz_b.y * fz_b.z + fz_x) * sizeof(unsigned long long);")
            smem = "fz_sm"
        stream = {"omit": None, "null": "0", "faf": "cudaStreamFireAndForget",
                  "tail": "cudaStreamTailLaunch", "created": "fz_s", "loop": "fz_ls",
                  "perthread": "cudaStreamPerThread"}[s.stream]
        if s.stream == "created":
            self.put(depth, "cudaStream_t fz_s;")
            self.put(depth, "cudaStreamCreateWithFlags(&fz_s, cudaStreamNonBlocking);")
        config = [grid, block]
        if smem or stream:
            config.append(smem or "0")
        if stream:
            config.append(stream)
        ctx = set(ctx) | ({"recursion"} if gate else set())
        child = "rec" if s.child.group else s.child.work
        tags = "stream=%s child=%s grid=%dd block=%dd under=%s" % (
            s.stream, child, s.grid.ndim, s.block.ndim, ",".join(sorted(ctx)) or "-")
        self.put(depth, "%s<<<%s>>>(%s);  // site: %s" % (s.child.name, ", ".join(config),
                                                         ", ".join(["out", "in"] + s.args), tags))
        if s.stream == "created":
            self.put(depth, "cudaStreamDestroy(fz_s);")
        if need_block:
            depth -= 1
            self.put(depth, "}")
        if gate:
            depth -= 1
            self.put(depth, "}")

    def work(self, k):
        ix = "_inl" if k.inline_index else ""
        put = self.put
        if k.work in ("atomic", "count", "observe", "stride"):
            if k.pre_return:
                put(1, "if (%s)" % k.pre_return)
                put(2, "return;")
        if k.work == "stride":
            put(1, "const unsigned long long n_all = fz_gthreads();")
            put(1, "for (unsigned long long j = g; j < n; j += n_all)")
            put(2, "fz_put(out, fz_mix(ph ^ (j * 0x100000001b3ull)));")
        elif k.work == "count":
            put(1, "atomicAdd(&out[FZ_SEEN], 1ull);")
            put(1, "fz_put(out, h);")
        elif k.work == "observe":
            put(1, "fz_put(out, fz_mix(h ^ atomicAdd(&out[FZ_SEEN], 0ull)));")
        elif k.work == "atomic":
            w = k.param("window")
            if w is not None:
                put(1, "fz_put_win(%s, h);" % w.name)
            else:
                put(1, "fz_put(out, h);")
        elif k.work == "sync":
            if k.pre_return:
                put(1, "if (%s)" % k.pre_return)
                put(2, "return;")
            put(1, "{")
            put(2, "__shared__ unsigned long long st[%d];" % k.max_block)
            put(2, "const unsigned t = fz_tid%s(), B = fz_bthreads%s();" % (ix, ix))
            put(2, "st[t] = h;")
            put(2, "dyn[t] = h ^ 0x%xull;" % k.salt)
            put(2, "for (unsigned j = t; j < x; j += B)")
            put(3, "dyn[B + j] = fz_mix(j + %du);" % k.salt)
            put(2, "__syncthreads();")
            put(2, "unsigned long long w = st[(t + 1) % B] + 3ull * dyn[B - 1 - t];")
            put(2, "if (t == 0)")
            put(3, "for (unsigned j = 0; j < x; ++j)")
            put(4, "w += dyn[B + j];")
            put(2, "__syncthreads();")
            put(2, "st[t] = w;")
            put(2, "__syncthreads();")
            put(2, "for (unsigned s = 1; s < B; s <<= 1) {")
            put(3, "if (t % (2 * s) == 0 && t + s < B)")
            put(4, "st[t] += st[t + s];")
            put(3, "__syncthreads();")
            put(2, "}")
            put(2, "if (t == 0)")
            put(3, "fz_log(out, LOG_CAP, fz_mix(st[0] ^ %s));" %
                ("fz_bid()" if not k.inline_index else "(blockIdx.x + 7u * blockIdx.y + 49u * blockIdx.z)"))
            put(1, "}")
        elif k.work == "warp":
            if k.pre_return:
                put(1, "if (%s)" % k.pre_return)
                put(2, "return;")
            put(1, "{")
            put(2, "const unsigned t = fz_tid%s(), B = fz_bthreads%s();" % (ix, ix))
            put(2, "const unsigned lanes = B - (t & ~31u) < 32u ? B - (t & ~31u) : 32u;")
            put(2, "const unsigned mask = lanes == 32u ? 0xffffffffu : (1u << lanes) - 1u;")
            put(2, "const unsigned sum = __reduce_add_sync(mask, (unsigned)h);")
            put(2, "const unsigned odd = __ballot_sync(mask, (h >> 7) & 1u);")
            put(2, "if ((t & 31u) == 0)")
            put(3, "fz_put(out, fz_mix(((unsigned long long)sum << 32 | odd) ^ %du));" % k.salt)
            put(1, "}")
        elif k.work == "reduce":
            # Whole-warp reductions and a 64-bit shuffle tree, written by lane 0 alone: klap's reduced serial
            # variant (KLAP321) where the launch allows it.
            if k.pre_return:
                put(1, "if (%s)" % k.pre_return)
                put(2, "return;")
            put(1, "{")
            if k.bounded:
                # The guard as CUDA code writes it: a 32-bit index against the parameter, signed.
                put(2, "const int i = blockIdx.x * blockDim.x + threadIdx.x;")
                put(2, "const bool on = i < (int)n;")
                put(2, "const unsigned v = on ? (unsigned)h : 0u;")
                put(2, "const unsigned lo = __reduce_min_sync(0xffffffffu, on ? (unsigned)(h >> 40) : 0xffffffffu);")
            else:
                put(2, "const unsigned v = (unsigned)h;")
            put(2, "const unsigned sum = __reduce_add_sync(0xffffffffu, v & 0xffffu);")
            put(2, "const unsigned top = __reduce_max_sync(0xffffffffu, v >> 7);")
            put(2, "const unsigned odd = __ballot_sync(0xffffffffu, (v >> 3) & 1u);")
            if k.bounded:
                put(2, "unsigned long long w = on ? (h >> 20) * %du + 1u : 0u;" % (1 + 2 * (k.salt % 5)))
            else:
                put(2, "unsigned long long w = (h >> 20) * %du + 1u;" % (1 + 2 * (k.salt % 5)))
            put(2, "for (int d = 16; d > 0; d /= 2)")
            put(3, "w += __shfl_down_sync(0xffffffffu, w, d);")
            put(2, "if (threadIdx.x % 32u == 0u) {")
            put(3, "fz_put(out, fz_mix(((unsigned long long)sum << 32 | top) ^ odd ^ w ^ %s%du));" %
                ("lo ^ " if k.bounded else "", k.salt))
            put(3, "if (g == 0)")
            put(4, "atomicAdd(&out[FZ_GRIDS], 1ull);")
            put(2, "}")
            put(1, "}")

    def kernel(self, k):
        ix = "_inl" if k.inline_index else ""
        put = self.put
        put(0, "__global__ %s {" % self.signature(k))
        put(1, "const unsigned long long g = fz_gtid%s();" % ix)
        put(1, "(void)in;")
        if k.work != "reduce":  # a reduce kernel counts its grid in lane 0's code, after its reductions
            put(1, "if (g == 0)")
            put(2, "atomicAdd(&out[FZ_GRIDS], 1ull);")
        scal = [p for p in k.params if p.kind in ("u32", "i32", "i16", "i8", "depth", "rep", "extra", "len")]
        uexpr = "(unsigned)%s * %du + %du" % (scal[0].name, 1 + 2 * (k.salt % 7), k.salt % 97) if scal else \
            "%du" % (k.salt % 1000)
        put(1, "const unsigned u = %s;" % uexpr)
        put(1, "unsigned long long ph = 0x%xull ^ u;" % k.salt)
        for p in k.params:
            if p.kind == "rep":
                continue  # the repetition must not change what a case computes, only how often
            put(1, "ph = fz_mix(ph ^ %s);" % self.hash_param(p))
        put(1, "const unsigned long long h = fz_mix(ph ^ fz_idx%s());" % ix)
        if k.work == "stride":
            put(1, "(void)h;  // a stride child's values depend on the items it covers, not on who covers them")
        self.work(k)
        self.stmts(k.body, 1, True, frozenset())
        put(0, "}")

    def devfn(self, fn):
        self.put(0, "__device__ __noinline__ void %s(unsigned long long *out, const int *in, "
                    "unsigned long long g, unsigned v, unsigned u) {" % fn.name)
        self.put(1, "(void)in, (void)g, (void)v, (void)u;")
        self.stmts(fn.body, 1, False, frozenset({"devfn-in-loop" if fn in self.looped else "devfn"}))
        self.put(0, "}")

    def emit(self):
        c = self.c
        put = self.put
        # Device functions some call reaches from inside a loop (KLAP208's case).
        self.looped = set()

        def mark(stmts, in_loop):
            for s in stmts:
                if isinstance(s, If):
                    mark(s.then, in_loop)
                    mark(s.els, in_loop)
                elif isinstance(s, For):
                    mark(s.body, True)
                elif isinstance(s, Call):
                    if in_loop:
                        self.looped.add(s.fn)
                    mark(s.fn.body, in_loop)

        for k in c.kernels:
            mark(k.body, False)
        put(0, "namespace %s {" % c.ns)
        put(0, "constexpr unsigned long long LOG_CAP = %du;" % max(c.log_cap, 1))
        put(0, "constexpr unsigned long long WORDS = FZ_LOG + LOG_CAP;")
        if any(k.work == "sync" for k in c.kernels):
            put(0, "extern __shared__ unsigned long long dyn[];")
        for s in c.structs:
            self.struct(s)
        for k in c.kernels:
            put(0, "__global__ %s;" % self.signature(k))
        for fn in c.devfns:
            self.devfn(fn)
        for k in c.kernels:
            self.kernel(k)
        # The host side.
        put(0, "static void run(FzCtx &x) {")
        put(1, "if (WORDS > x.host.size()) {")
        put(2, 'std::printf("case %d-%d ERROR too-large\\n");' % (c.seed, c.index))
        put(2, "return;")
        put(1, "}")
        put(1, "fz_fill_in(x, %du);" % (c.in_seed & 0xFFFFFFFF))
        put(1, "fz_clear(x, WORDS);")
        put(1, "for (unsigned rep = 0; rep < %d; ++rep)" % c.reps)
        config = [c.root_grid.text, c.root_block.text]
        if c.root_extra is not None:
            b = c.root_block
            config.append("(%d + %d) * sizeof(unsigned long long)" % (b.total(), c.root_extra))
        put(2, "%s<<<%s>>>(%s);" % (c.root.name, ", ".join(config), ", ".join(["x.out", "x.in"] + c.root_args)))
        put(1, 'fz_finish(x, "%d-%d", WORDS, LOG_CAP);' % (c.seed, c.index))
        put(0, "}")
        put(0, "}  // namespace %s" % c.ns)
        return "\n".join(self.lines) + "\n"


MAIN = r"""
static bool fz_wanted(int argc, char **argv, int i) {
  if (argc < 2)
    return true;
  for (int a = 1; a < argc; ++a) {
    int lo, hi;
    char dash;
    int n = std::sscanf(argv[a], "%%d%%c%%d", &lo, &dash, &hi);
    if (n == 1 && lo == i)
      return true;
    if (n == 3 && dash == '-' && lo <= i && i <= hi)
      return true;
  }
  return false;
}

// Usage: prog [I | I-J ...]   (the cases to run; all when none is given); prog --count (one past the last
// case's index); prog --present (the indices of the cases it holds, one a line: a program generated with
// some cases only keeps each case's index).
// FUZZ_CASE_TIMEOUT: seconds a case may take before the program reports it as hung (default 20).
int main(int argc, char **argv) {
  static void (*const cases[])(FzCtx &) = {%(cases)s};
  static const int present[] = {%(present)s};
  const int count = (int)(sizeof cases / sizeof cases[0]);
  if (argc == 2 && std::strcmp(argv[1], "--count") == 0) {
    std::printf("%%d\n", count);
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--present") == 0) {
    for (int k = 0; k < (int)(sizeof present / sizeof present[0]); ++k)
      std::printf("%%d\n", present[k]);
    return 0;
  }
  FzCtx x;
  const char *limit = std::getenv("FUZZ_CASE_TIMEOUT");
  x.case_timeout = limit ? std::atof(limit) : 20.0;
  x.lost = false;
  x.host.resize(%(words)d);
  cudaError_t e = cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 1 << 15);
  if (e == cudaSuccess)
    e = cudaMalloc(&x.out, x.host.size() * sizeof(unsigned long long));
  if (e == cudaSuccess)
    e = cudaMalloc(&x.in, FZ_IN * sizeof(int));
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&x.done, cudaEventDisableTiming);
  if (e != cudaSuccess) {
    std::printf("setup ERROR %%s\n", fz_ename(e));
    return 2;
  }
  for (int i = 0; i < count; ++i) {
    if (!fz_wanted(argc, argv, i))
      continue;
    if (x.lost) {
      std::printf("fuzz: the CUDA context was lost; cases from %%d on did not run\n", i);
      return 2;
    }
    cases[i](x);
    std::fflush(stdout);
  }
  return 0;
}
"""


def emit_program(seed, indices, out):
    cases = [make_case(seed, i) for i in indices]
    text = [PRELUDE]
    most = 0
    for case in cases:
        text.append(case.emit() if isinstance(case, ChainCase) else Emitter(case).emit())
        most = max(most, LOG_BASE + max(case.log_cap, 1))
    # Unselected indices keep their position so that case i is still argument i.
    table = []
    by_index = {c.index: c for c in cases}
    for i in range(max(indices) + 1):
        table.append("%s::run" % by_index[i].ns if i in by_index else "fz_skip")
    if len(cases) != max(indices) + 1:
        text.append("static void fz_skip(FzCtx &) {}\n")
    text.append(MAIN % {"cases": ", ".join(table), "present": ", ".join(str(c.index) for c in cases), "words": most})
    out.write("".join(text))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--cases", type=int, default=100, help="cases 0..N-1 (default 100)")
    ap.add_argument("--case", type=int, action="append", help="only this case (repeatable)")
    ap.add_argument("-o", "--output", help="output file (default stdout)")
    ap.add_argument("--stats", action="store_true", help="print each case's launch bound to stderr")
    ap.add_argument("--chains-only", action="store_true",
                    help="only the cases that are chains of one-block links (ChainCase; each keeps its index)")
    args = ap.parse_args()
    indices = sorted(set(args.case)) if args.case else list(range(args.cases))
    if args.chains_only:
        indices = [i for i in indices if isinstance(make_case(args.seed, i), ChainCase)]
        if not indices:
            print("gen.py: seed %d has no chain case among the cases asked for" % args.seed, file=sys.stderr)
            sys.exit(NO_CHAIN_CASE)
    if args.output:
        with open(args.output, "w") as f:
            cases = emit_program(args.seed, indices, f)
    else:
        cases = emit_program(args.seed, indices, sys.stdout)
    if args.stats:
        for c in cases:
            print("case %d-%d launches<=%d log<=%d kernels=%d devfns=%d" %
                  (c.seed, c.index, c.launch_bound, c.log_cap, len(c.kernels), len(c.devfns)), file=sys.stderr)


if __name__ == "__main__":
    main()
