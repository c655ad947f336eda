// The part of klap that only LLVM's C++ API offers: pass and analysis registration with the new pass
// manager, the analyses klap consults (dominators, loops, uniformity), optimization remarks, statistics,
// command-line options and block splitting. Everything else is Rust (pass/src); the Rust side reaches
// these functions through pass/src/ffi.rs only.
#include "llvm-c/Core.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/UniformityAnalysis.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <memory>

using namespace llvm;
using namespace llvm::PatternMatch;

#define DEBUG_TYPE "klap"

STATISTIC(NumLaunchesRecognized, "Device launch sites recognized");
STATISTIC(NumLaunchesUnrecognized, "Device launch sites left alone as unrecognized");
STATISTIC(NumLaunchesNormalized, "V1 device launches rewritten into the V2 form");
STATISTIC(NumLaunchesAggregated, "Device launches aggregated");
STATISTIC(NumLaunchesSerialized, "Device launches serialized");
STATISTIC(NumMallocsAggregated, "Device-side cudaMalloc calls aggregated per warp");
STATISTIC(NumLaunchesBlockReused, "Device launches run by their launching block");
STATISTIC(NumLaunchesGridReused, "Device launches whose child grids parent blocks that are done may run");
STATISTIC(NumLaunchesRunInThreadWithoutRecord, "Aggregated launches whose child the launching thread runs where no record can be had");
STATISTIC(NumKernelsRegisterCapped, "Kernels with klap's runtime code whose registers were capped");
STATISTIC(NumParamsMarkedReadOnly, "Kernel pointer parameters marked readonly across launches");
STATISTIC(NumChildrenCoarsened, "Aggregated children whose blocks each run several aggregated blocks");

static cl::opt<std::string> GranularityOpt(
    "klap-granularity",
    cl::desc("Kernel launch aggregation in clang's pipeline: none, warp, block, grid or auto (default: one-block "
             "chains run in a loop, small children serialized, the rest aggregated per grid)"),
    cl::init("auto"));

static cl::opt<bool> MergeNullStreamOpt(
    "klap-merge-null-stream",
    cl::desc("Aggregate NULL-stream launches (assumes no ordering between the NULL-stream launches of "
             "one thread block matters, as with fire-and-forget)"),
    cl::init(true));

static cl::opt<bool> SkipLoneOpt(
    "klap-skip-lone-launches",
    cl::desc("At warp and block granularity, leave a launch reached only by threads with one threadIdx.x "
             "as written: one thread per one-dimensional block has nothing to aggregate"),
    cl::init(true));

static cl::opt<bool> TraceOpt("klap-trace",
                              cl::desc("Report every fallback to an unaggregated launch at run time"),
                              cl::init(false));

// 64 MiB ran short at the sweep's largest sizes (measured on an H200: qt with 1,000,000 points at grid
// granularity 3292 ms with 64 MiB against 38 ms with 256 MiB; bt with 409,600 lines at warp 194 against
// 16 ms; bfs with 400,000 vertices at block 211 against 3.5 ms): records were launched one by one.
static constexpr unsigned DefaultPoolMiB = 256;

static cl::opt<unsigned> PoolMiBOpt("klap-pool-size", cl::desc("Aggregation record pool, in MiB, per module"),
                                    cl::init(DefaultPoolMiB));

static cl::opt<bool> InlineRuntimeOpt("klap-inline-runtime",
                                      cl::desc("Inline the device runtime into the kernels (default); "
                                               "off, its entry points stay calls"),
                                      cl::init(true), cl::Hidden);

static cl::opt<bool> SerializeOpt("klap-serialize",
                                  cl::desc("Run a child grid of at most -klap-serialize-threshold threads in the "
                                           "launching thread instead of launching it (on with -klap-granularity=auto)"),
                                  cl::init(false));

static cl::opt<bool> SerializeWarpOpt("klap-serialize-warp",
                                      cl::desc("Run serialized children by the launching warp together: the lanes "
                                               "that reach the launch share their children's threads"),
                                      cl::init(false));

// Chosen by measurement on the GPU: see BENCHMARKS.md (the threshold sweep).
static constexpr unsigned DefaultSerializeThreshold = 32;

static cl::opt<unsigned> SerializeThresholdOpt("klap-serialize-threshold",
                                               cl::desc("The most threads a child grid may have to be serialized"),
                                               cl::init(DefaultSerializeThreshold));

// Where the launching grid has at most 16,384 threads (the default chosen by measurement, BENCHMARKS.md,
// fourteenth session: gc, mstv, mstf at 2,003 to 4,096 parent threads).
static constexpr unsigned DefaultSerializeSmallGridThreshold = 1024;

static cl::opt<unsigned> SerializeSmallGridThresholdOpt(
    "klap-serialize-small-grid-threshold",
    cl::desc("The most working threads a child grid may have to be serialized where the launching grid has at most "
             "16384 threads (0: -klap-serialize-threshold there too)"),
    cl::init(DefaultSerializeSmallGridThreshold));

// A warp runs its lanes' children a child warp at a time: a child of N threads costs it N / 32 steps.
// Chosen by measurement on the GPU: BENCHMARKS.md (sixteenth session).
static constexpr unsigned DefaultWarpRunThreshold = 16384;

static cl::opt<unsigned> WarpRunThresholdOpt(
    "klap-warp-run-threshold",
    cl::desc("The most threads a child grid whose threads talk within their warp (shuffles, votes, reductions) may "
             "have to be run by the launching warp instead of launched, where serialization is on (0: never)"),
    cl::init(DefaultWarpRunThreshold));

// A child warp whose reductions one thread folds costs that thread N steps for a child of N threads (and the
// warp as many as its longest lane's child); larger children are run by the warp. Chosen by measurement on the
// GPU: BENCHMARKS.md (thirtieth session).
static constexpr unsigned DefaultReduceThreshold = 768;

static cl::opt<unsigned> ReduceThresholdOpt(
    "klap-reduce-threshold",
    cl::desc("The most threads a child grid whose threads reduce within their warp (__reduce_*_sync, shuffle "
             "trees, votes) may have to be run by the launching thread, its reductions folded lane by lane, "
             "where serialization is on (0: never)"),
    cl::init(DefaultReduceThreshold));

// Where the launching grid has fewer threads, its launches are launched (transform/serialize.rs says why).
static constexpr unsigned DefaultWarpRunGridThreads = 65536;

static cl::opt<unsigned> WarpRunGridThreadsOpt(
    "klap-warp-run-grid-threads",
    cl::desc("The fewest threads a launching grid must have for its warps to run their children themselves"),
    cl::init(DefaultWarpRunGridThreads), cl::Hidden);

// The device runtime's code inlined into a kernel set its register count: 61 to 69 registers for every
// parent and aggregated child of the suite, against 30 to 38 for their code as written, which halves the
// blocks a multiprocessor holds. Capped (`.maxnreg`), ptxas spills in the runtime's paths instead. Chosen
// by measurement on the GPU: BENCHMARKS.md (seventeenth session).
static constexpr unsigned DefaultMaxRegisters = 48;

static cl::opt<unsigned> MaxRegistersOpt(
    "klap-max-registers",
    cl::desc("The most registers per thread of a kernel klap added its device runtime's code to (.maxnreg); kernels "
             "with __launch_bounds__ or __maxnreg__ keep theirs; kernels that run children's threads themselves get 64 at "
             "least (0: no cap)"),
    cl::init(DefaultMaxRegisters));

static cl::opt<bool> BlockReuseOpt("klap-block-reuse",
                                   cl::desc("Run the child blocks a parent block launches with the parent block's "
                                            "threads at its end instead of launching them (opt-in at any granularity: "
                                            "-klap-granularity=auto does not take it, docs/block-reuse.md)"),
                                   cl::init(false));

static cl::opt<bool> GridReuseOpt("klap-grid-reuse",
                                  cl::desc("Let parent blocks that are done run whole child grids registered in their "
                                           "grid scope, with all their threads, before the scope's aggregated launch "
                                           "(Free Launch's T2; with -klap-granularity=grid or auto)"),
                                  cl::init(false));

static cl::opt<unsigned> GridReuseBlocksOpt(
    "klap-grid-reuse-blocks",
    cl::desc("Under grid reuse, the child blocks a parent block takes at a time, of one child grid (Free Launch's T1; "
             "implies -klap-grid-reuse); 0, the default, takes whole child grids (T2)"),
    cl::init(0));

// What the pass gives the runtime for blocks per take where it selects them as a grid's blocks are taken
// (runtime/reuse.cu, pass/src/runtime.rs: SELECT_PER_TAKE).
static constexpr uint32_t SelectPerTake = 0xffffffffu;

static cl::opt<bool> GridReuseSelectOpt(
    "klap-grid-reuse-select",
    cl::desc("Under grid reuse, choose per take between a whole child grid (Free Launch's T2) and a parent block's "
             "share of the registered child blocks (T1), as Free Launch's device-side selector does (implies "
             "-klap-grid-reuse; not with -klap-grid-reuse-blocks)"),
    cl::init(false));

// A bound on the shared memory the queue takes from every parent block (records of 32 bytes plus the
// child's arguments), not a measured optimum.
static constexpr unsigned DefaultBlockReuseQueue = 32;

static cl::opt<unsigned> BlockReuseQueueOpt("klap-block-reuse-queue",
                                            cl::desc("Launch records a parent block's block-reuse queue holds"),
                                            cl::init(DefaultBlockReuseQueue));
static cl::opt<std::string> PromoteOpt(
    "klap-promote",
    cl::desc("Kernel launch promotion of one-block kernels that launch themselves: none, basic, aggregate, "
             "overlap (basic, the prologue before the wait), all (aggregate and overlap), loop (the block runs "
             "the next link itself) (default: none; under -klap-granularity=auto, the loop, handing long chains of "
             "slow links to pools with overlap, and pools with overlap where the loop does not apply)"),
    cl::init(""));

// KLAP's granularity of promotion with aggregation (MICRO 2016, section IV: PA is a pool of 128); on an H100
// with promote=all, 64 and 128 were within 1% of each other and the best of 16 to 512 (BENCHMARKS.md).
static constexpr unsigned DefaultPromotePool = 128;

static cl::opt<unsigned> PromotePoolOpt("klap-promote-pool",
                                        cl::desc("Links per pool with -klap-promote=aggregate (one grid of that "
                                                 "many blocks)"),
                                        cl::init(DefaultPromotePool));

// When the loop of a chain at `auto` hands the chain over to a pool (promote/looped.rs): rules LINKS:NS, after
// LINKS links in the loop where they averaged more than NS nanoseconds each. On an H200 (KLAP's six chains, 18
// rows): 8:4000 was 1.05x faster than 64:2500 alone on the medium sizes (unq 1.19x), 16:2500 handed sc's and
// pt's medium chains over, whose pools were no faster; 64:2500 then hands over long chains, where a pool's fixed
// cost is spread over many links (BENCHMARKS.md, twentieth session).
static constexpr const char *DefaultPromoteHandOver = "8:4000,64:2500";
constexpr unsigned MaxHandOverRules = 4;
static cl::opt<std::string> PromoteHandOverOpt("klap-promote-hand-over",
                                               cl::desc("At auto, when a chain's loop hands over to a pool: "
                                                        "LINKS:NS rules, comma-separated (after LINKS links that "
                                                        "averaged more than NS ns each); empty: never"),
                                               cl::init(DefaultPromoteHandOver));

// The largest coarsening factor and threads per multiprocessor (the runtime takes them in 8 bits and, in 64s, 6
// bits of a word: pass/src/child.rs, runtime/klap_rt.h).
constexpr unsigned MaxCoarsen = 255, CoarsenSMThreadsUnit = 64, MaxCoarsenSMThreads = 63 * CoarsenSMThreadsUnit;
// Not given: none, but under -klap-granularity=auto the children of one-warp blocks (pass/src/plugin.rs).
constexpr unsigned CoarsenUnset = 256;
static cl::opt<unsigned> CoarsenOpt("klap-coarsen",
                                    cl::desc("Aggregated blocks each block of an aggregated child runs at most, "
                                             "one after another, where the child's threads need nothing of each "
                                             "other (0 or 1: one; at most 255; default: none, and 8 for "
                                             "children of one-warp blocks under auto)"),
                                    cl::init(0));
// A coarsened launch keeps as many blocks as hold this many threads a multiprocessor (sm_90's most), so that
// coarsening never leaves a multiprocessor with fewer blocks than it could run.
static constexpr unsigned DefaultCoarsenSMThreads = 2048;
static cl::opt<unsigned> CoarsenSMThreadsOpt("klap-coarsen-sm-threads",
                                             cl::desc("The threads a multiprocessor a coarsened aggregated launch "
                                                      "keeps at least (a multiple of 64, at most 4032; 0: coarsen "
                                                      "every launch)"),
                                             cl::init(DefaultCoarsenSMThreads));

static cl::opt<bool> SpawnOpt("klap-spawn",
                             cl::desc("SPAWN's controller: at each launch of a child that serialization could run in "
                                      "the launching thread, decide at run time from the child work in flight "
                                      "(implies serialization)"),
                             cl::init(false));
// SPAWN's launch overhead (Equation 1) in clock cycles: about 2 us at sm_90's clocks, the order of a launch
// from the device that klap aggregates. Not a measured optimum.
static constexpr unsigned DefaultSpawnLaunchCycles = 4000;
static cl::opt<unsigned> SpawnLaunchCyclesOpt("klap-spawn-launch-cycles",
                                              cl::desc("The launch overhead, in clock cycles, SPAWN's controller "
                                                       "counts for a launched child"),
                                              cl::init(DefaultSpawnLaunchCycles));
// The longest serial run the controller may choose: a bound on one thread's loop, whatever it estimates.
static constexpr unsigned DefaultSpawnMaxThreads = 4096;
static cl::opt<unsigned> SpawnMaxThreadsOpt("klap-spawn-max-threads",
                                            cl::desc("The most working threads of a child SPAWN's controller may "
                                                     "run in the launching thread"),
                                            cl::init(DefaultSpawnMaxThreads));

// One switch per step of the pipeline (plugin.rs), for finding which step a problem comes from.
static cl::opt<bool> DisableNormalizeOpt("klap-disable-normalize", cl::desc("Skip klap's normalize step"),
                                         cl::init(false));
static cl::opt<bool> DisableSerializeOpt("klap-disable-serialize", cl::desc("Skip klap's serialization step"),
                                         cl::init(false));
static cl::opt<bool> DisableBlockReuseOpt("klap-disable-block-reuse", cl::desc("Skip klap's block-reuse step"),
                                          cl::init(false));
static cl::opt<bool> DisableAggregateOpt("klap-disable-aggregate", cl::desc("Skip klap's aggregation step"),
                                         cl::init(false));
static cl::opt<bool> DisableMallocOpt("klap-disable-malloc",
                                      cl::desc("Skip klap's device-side cudaMalloc aggregation step"),
                                      cl::init(false));
static cl::opt<bool> DisablePromoteOpt("klap-disable-promote", cl::desc("Skip klap's promotion step"),
                                       cl::init(false));
static cl::opt<bool> DisableReadOnlyOpt("klap-disable-read-only",
                                        cl::desc("Skip klap's step that marks kernel pointer parameters readonly "
                                                 "across launches"),
                                        cl::init(false));
static cl::opt<bool> DisableInlineRuntimeOpt("klap-disable-inline-runtime",
                                             cl::desc("Skip inlining klap's device runtime (as "
                                                      "-klap-inline-runtime=false)"),
                                             cl::init(false));

static cl::opt<bool> NormalizeAtOptimizerLast(
    "klap-normalize",
    cl::desc("Rewrite V1 device launches into the V2 form at the end of the optimization pipeline "
             "(clang -fpass-plugin); without it clang 22 drops tail and fire-and-forget launches"),
    cl::init(true));

static cl::opt<bool> DevrtStubsOpt(
    "klap-devrt-stubs",
    cl::desc("At the start of the pipeline, call the device runtime's real cudaMalloc, cudaGetDevice, ... "
             "where CUDA's header gave device code compiled without __CUDACC_RDC__ stubs that fail"),
    cl::init(true));

static cl::opt<bool> AtLinkOpt(
    "klap-at-link",
    cl::desc("With -foffload-lto, aggregate and serialize at the device link, on the linked module (the plugin "
             "loaded there: --plugin-opt=-load-pass-plugin=...): the compile only normalizes and records its klap "
             "options in the module"),
    cl::init(false));

// What the Rust side needs to query analyses while it works on one module.
struct KlapCtx {
  Module &M;
  FunctionAnalysisManager &FAM;
};

// The options of klap's transformations, as pass/src/plugin.rs's RawOptions reads them (same fields, same
// order). Granularity: 0 none, 1 warp, 2 block, 3 grid, 4 auto. DisabledSteps: bit 0 normalize, bit 1
// aggregate, bit 2 serialize, bit 3 malloc, bit 4 block reuse, bit 5 promote, bit 6 read-only. Promote: 0 none, 1 basic,
// 2 aggregate, 3 overlap, 4 all, 255 unset (none). PromotePool: links per pool at promote=aggregate.
constexpr uint32_t PromoteUnset = 255;
struct KlapRustOptions {
  uint32_t Granularity = 3;
  bool MergeNullStream = true;
  bool SkipLone = true;
  bool Trace = false;
  bool Serialize = false;
  uint64_t PoolBytes = 0;
  uint32_t DisabledSteps = 0;
  uint64_t SerializeThreshold = DefaultSerializeThreshold;
  bool BlockReuse = false;
  uint32_t BlockReuseQueue = DefaultBlockReuseQueue;
  uint32_t Promote = PromoteUnset;
  uint32_t PromotePool = DefaultPromotePool;
  // LINKS, NS of each of HandOverRuleCount rules (-klap-promote-hand-over).
  uint32_t HandOverRules[2 * MaxHandOverRules] = {8, 4000, 64, 2500};
  uint32_t HandOverRuleCount = 2;
  bool SerializeWarp = false;
  uint64_t SerializeSmallGridThreshold = DefaultSerializeSmallGridThreshold;
  uint64_t WarpRunThreshold = DefaultWarpRunThreshold;
  uint64_t WarpRunGridThreads = DefaultWarpRunGridThreads;
  uint64_t MaxRegisters = DefaultMaxRegisters;
  // The runtime is inlined: through calls, the runtime's registers would count toward every parent
  // kernel's call graph (measured: 24 to 102 registers), too many for 1024-thread blocks.
  bool InlineRuntime = true;
  // Aggregated blocks each block of an aggregated child runs at most (0 or 1: one), and the threads a
  // multiprocessor below which its launch does not go.
  uint32_t Coarsen = CoarsenUnset;
  uint32_t CoarsenSMThreads = DefaultCoarsenSMThreads;
  // SPAWN's controller decides serialization at run time; its launch overhead and its longest serial run.
  bool Spawn = false;
  uint64_t SpawnLaunchCycles = DefaultSpawnLaunchCycles;
  uint64_t SpawnMaxThreads = DefaultSpawnMaxThreads;
  // Grid reuse: parent blocks that are done run child grids of their grid scope, or this many blocks of
  // one at a time (0: whole grids).
  bool GridReuse = false;
  uint32_t GridReuseBlocks = 0;
  uint64_t ReduceThreshold = DefaultReduceThreshold;
};

extern "C" {
// Defined in Rust (pass/src/plugin.rs). The int results: 0 unchanged, 1 changed, -1 failed (the message is
// on errs() already).
void *klap_rust_analyze(KlapCtx *Ctx);
void klap_rust_model_free(void *Model);
int klap_rust_print_launches(void *Model);
int klap_rust_print_graph(void *Model);
int klap_rust_run(void *Model, KlapCtx *Ctx, const KlapRustOptions *Options);
int klap_rust_note_left_to_link(void *Model, KlapCtx *Ctx);
int klap_rust_devrt_stubs(KlapCtx *Ctx);
}

namespace {

// The launch-site model, computed once per module and shared by every klap pass until a pass changes
// the IR. The model itself lives on the Rust side; this only owns it.
class KlapLaunchAnalysis : public AnalysisInfoMixin<KlapLaunchAnalysis> {
  friend AnalysisInfoMixin<KlapLaunchAnalysis>;
  static AnalysisKey Key;

public:
  struct Result {
    std::unique_ptr<void, void (*)(void *)> Model{nullptr, klap_rust_model_free};
    bool invalidate(Module &, const PreservedAnalyses &PA, ModuleAnalysisManager::Invalidator &) {
      auto PAC = PA.getChecker<KlapLaunchAnalysis>();
      return !PAC.preserved() && !PAC.preservedSet<AllAnalysesOn<Module>>();
    }
  };

  Result run(Module &M, ModuleAnalysisManager &MAM) {
    auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    KlapCtx Ctx{M, FAM};
    Result R;
    R.Model.reset(klap_rust_analyze(&Ctx));
    return R;
  }
};
AnalysisKey KlapLaunchAnalysis::Key;

// A failure on the Rust side becomes an error diagnostic: opt and clang then exit non-zero.
void reportFailure(Module &M, const char *What) {
  M.getContext().emitError(Twine("klap: ") + What + " failed (see the message above)");
}

template <int (*Print)(void *), const char *Name> struct KlapPrinterPass : PassInfoMixin<KlapPrinterPass<Print, Name>> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    if (Print(MAM.getResult<KlapLaunchAnalysis>(M).Model.get()) < 0)
      reportFailure(M, Name);
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};
constexpr char PrintLaunchesName[] = "print<klap-launches>";
constexpr char PrintGraphName[] = "print<klap-graph>";

struct KlapOptions {
  KlapRustOptions Rust;
};

// klap's pipeline (pass/src/plugin.rs): normalize, then aggregate, as the options enable them.
struct KlapPipelinePass : PassInfoMixin<KlapPipelinePass> {
  KlapRustOptions Opts;
  explicit KlapPipelinePass(KlapRustOptions O) : Opts(O) {}
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    KlapCtx Ctx{M, FAM};
    int Status = klap_rust_run(MAM.getResult<KlapLaunchAnalysis>(M).Model.get(), &Ctx, &Opts);
    if (Status < 0)
      reportFailure(M, "the klap pipeline");
    return Status == 0 ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
  // Without it clang 22's launches into the named streams are lost, also at -O0.
  static bool isRequired() { return true; }
};

// The device runtime's real entry points in place of the stubs CUDA's header gives device code compiled
// without __CUDACC_RDC__ (pass/src/transform/devrt_stubs.rs). It runs at the start of clang's pipeline:
// later the inliner folds a stub's cudaErrorUnknown into its callers.
struct KlapDevrtStubsPass : PassInfoMixin<KlapDevrtStubsPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    KlapCtx Ctx{M, FAM};
    int Status = klap_rust_devrt_stubs(&Ctx);
    if (Status < 0)
      reportFailure(M, "klap-devrt-stubs");
    return Status == 0 ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
  // Also at -O0, where a stub stays a weak definition that nvlink may pick over libcudadevrt's.
  static bool isRequired() { return true; }
};
std::optional<unsigned> parsePromote(StringRef S) {
  return StringSwitch<std::optional<unsigned>>(S)
      .Case("none", 0)
      .Case("basic", 1)
      .Case("aggregate", 2)
      .Case("overlap", 3)
      .Case("all", 4)
      .Case("loop", 5)
      .Case("auto", PromoteUnset)
      .Default(std::nullopt);
}
constexpr char PromoteValues[] = "none, basic, aggregate, overlap, all, loop or auto";
// The most links a pool may have (its record, a slot per link, must fit the runtime's largest chunk).
constexpr unsigned MaxPromotePool = 1u << 16;
// The register counts `.maxnreg` may ask for: ptxas gives no thread fewer than 16, and none more than 255.
constexpr unsigned MinMaxRegisters = 16, MaxMaxRegisters = 255;

std::optional<unsigned> parseGranularity(StringRef S) {
  return StringSwitch<std::optional<unsigned>>(S)
      .Case("none", 0)
      .Case("warp", 1)
      .Case("block", 2)
      .Case("grid", 3)
      .Case("auto", 4)
      .Default(std::nullopt);
}

// -klap-promote-hand-over: "LINKS:NS,..." into the options' rules; a malformed list is an error.
static void parseHandOver(StringRef List, KlapRustOptions &O) {
  SmallVector<StringRef, MaxHandOverRules + 1> Rules;
  if (!List.empty())
    List.split(Rules, ',');
  if (Rules.size() > MaxHandOverRules)
    report_fatal_error(Twine("klap: -klap-promote-hand-over takes at most ") + Twine(MaxHandOverRules) + " rules",
                       /*gen_crash_diag=*/false);
  O.HandOverRuleCount = 0;
  for (StringRef Rule : Rules) {
    auto [Links, Ns] = Rule.split(':');
    unsigned L, N;
    if (Links.trim().getAsInteger(10, L) || Ns.trim().getAsInteger(10, N) || L == 0)
      report_fatal_error(Twine("klap: -klap-promote-hand-over: a rule is LINKS:NS with LINKS at least 1, not '") +
                             Rule + "'",
                         /*gen_crash_diag=*/false);
    O.HandOverRules[2 * O.HandOverRuleCount] = L;
    O.HandOverRules[2 * O.HandOverRuleCount + 1] = N;
    ++O.HandOverRuleCount;
  }
}

KlapOptions optionsFromCommandLine() {
  KlapOptions O;
  if (auto G = parseGranularity(GranularityOpt))
    O.Rust.Granularity = *G;
  else
    report_fatal_error(Twine("klap: -klap-granularity must be none, warp, block, grid or auto, not '") + GranularityOpt +
                       "'", /*gen_crash_diag=*/false);
  O.Rust.MergeNullStream = MergeNullStreamOpt;
  O.Rust.SkipLone = SkipLoneOpt;
  O.Rust.PoolBytes = uint64_t(PoolMiBOpt) << 20;
  O.Rust.Trace = TraceOpt;
  O.Rust.Serialize = SerializeOpt;
  O.Rust.SerializeWarp = SerializeWarpOpt;
  O.Rust.SerializeThreshold = SerializeThresholdOpt;
  O.Rust.SerializeSmallGridThreshold = SerializeSmallGridThresholdOpt;
  O.Rust.WarpRunThreshold = WarpRunThresholdOpt;
  O.Rust.WarpRunGridThreads = WarpRunGridThreadsOpt;
  O.Rust.ReduceThreshold = ReduceThresholdOpt;
  O.Rust.MaxRegisters = MaxRegistersOpt;
  if (MaxRegistersOpt != 0 && (MaxRegistersOpt < MinMaxRegisters || MaxRegistersOpt > MaxMaxRegisters))
    report_fatal_error(Twine("klap: -klap-max-registers must be 0 or a number from ") + Twine(MinMaxRegisters) + " to " +
                           Twine(MaxMaxRegisters) + ", not " + Twine(unsigned(MaxRegistersOpt)),
                       /*gen_crash_diag=*/false);
  if (!PromoteOpt.empty()) {
    if (auto P = parsePromote(PromoteOpt))
      O.Rust.Promote = *P;
    else
      report_fatal_error(Twine("klap: -klap-promote must be ") + PromoteValues + ", not '" + PromoteOpt + "'",
                         /*gen_crash_diag=*/false);
  }
  if (PromotePoolOpt == 0 || PromotePoolOpt > MaxPromotePool)
    report_fatal_error(Twine("klap: -klap-promote-pool must be 1 to ") + Twine(MaxPromotePool) + ", not " +
                           Twine(unsigned(PromotePoolOpt)),
                       /*gen_crash_diag=*/false);
  O.Rust.PromotePool = PromotePoolOpt;
  parseHandOver(PromoteHandOverOpt, O.Rust);
  O.Rust.BlockReuse = BlockReuseOpt;
  O.Rust.BlockReuseQueue = BlockReuseQueueOpt;
  if (GridReuseSelectOpt && GridReuseBlocksOpt > 0)
    report_fatal_error("klap: -klap-grid-reuse-select chooses the blocks per take itself: not with -klap-grid-reuse-blocks",
                       /*gen_crash_diag=*/false);
  O.Rust.GridReuse = GridReuseOpt || GridReuseBlocksOpt > 0 || GridReuseSelectOpt;
  O.Rust.GridReuseBlocks = GridReuseSelectOpt ? SelectPerTake : unsigned(GridReuseBlocksOpt);
  O.Rust.DisabledSteps = (DisableNormalizeOpt ? 1u : 0u) | (DisableAggregateOpt ? 2u : 0u) |
                         (DisableSerializeOpt ? 4u : 0u) | (DisableMallocOpt ? 8u : 0u) |
                         (DisableBlockReuseOpt ? 16u : 0u) | (DisablePromoteOpt ? 32u : 0u) |
                         (DisableReadOnlyOpt ? 64u : 0u);
  O.Rust.InlineRuntime = InlineRuntimeOpt && !DisableInlineRuntimeOpt;
  if (CoarsenOpt > MaxCoarsen)
    report_fatal_error(Twine("klap: -klap-coarsen must be 0 to ") + Twine(MaxCoarsen) + ", not " +
                           Twine(unsigned(CoarsenOpt)),
                       /*gen_crash_diag=*/false);
  O.Rust.Coarsen = CoarsenOpt.getNumOccurrences() ? unsigned(CoarsenOpt) : CoarsenUnset;
  if (CoarsenSMThreadsOpt > MaxCoarsenSMThreads || CoarsenSMThreadsOpt % CoarsenSMThreadsUnit)
    report_fatal_error(Twine("klap: -klap-coarsen-sm-threads must be a multiple of 64 from 0 to ") +
                           Twine(MaxCoarsenSMThreads) + ", not " + Twine(unsigned(CoarsenSMThreadsOpt)),
                       /*gen_crash_diag=*/false);
  O.Rust.CoarsenSMThreads = CoarsenSMThreadsOpt;
  O.Rust.Spawn = SpawnOpt;
  O.Rust.SpawnLaunchCycles = SpawnLaunchCyclesOpt;
  O.Rust.SpawnMaxThreads = SpawnMaxThreadsOpt;
  if (O.Rust.GridReuse && O.Rust.Granularity < 3)
    report_fatal_error("klap: -klap-grid-reuse needs -klap-granularity=grid or auto: parent blocks take child grids "
                       "from their grid scope",
                       /*gen_crash_diag=*/false);
  return O;
}

// klap<granularity=warp|block|grid|auto|none;merge-null-stream|no-merge-null-stream;
//      skip-lone-launches|no-skip-lone-launches;serialize|no-serialize;serialize-threshold=N;
//      serialize-small-grid-threshold=N;warp-run-threshold=N;warp-run-grid-threads=N;reduce-threshold=N;max-registers=N;
//      block-reuse|no-block-reuse;block-reuse-queue=N;grid-reuse|no-grid-reuse;grid-reuse-blocks=N;grid-reuse-select;pool-mib=N;trace;promote=none|basic|aggregate|overlap|all|auto;
//      promote-pool=N;coarsen=N;coarsen-sm-threads=N;spawn;spawn-launch-cycles=N;spawn-max-threads=N;
//      no-inline-runtime>
Expected<KlapOptions> parseAggregateParams(StringRef Params) {
  KlapOptions O = optionsFromCommandLine();
  bool Select = O.Rust.GridReuseBlocks == SelectPerTake;
  while (!Params.empty()) {
    StringRef P;
    std::tie(P, Params) = Params.split(';');
    if (P.consume_front("granularity=")) {
      auto G = parseGranularity(P);
      if (!G)
        return make_error<StringError>("klap: granularity must be none, warp, block, grid or auto, not '" + P.str() + "'",
                                       inconvertibleErrorCode());
      O.Rust.Granularity = *G;
    } else if (P == "merge-null-stream" || P == "no-merge-null-stream") {
      O.Rust.MergeNullStream = P == "merge-null-stream";
    } else if (P == "skip-lone-launches" || P == "no-skip-lone-launches") {
      O.Rust.SkipLone = P == "skip-lone-launches";
    } else if (P == "trace") {
      O.Rust.Trace = true;
    } else if (P == "serialize" || P == "no-serialize") {
      O.Rust.Serialize = P == "serialize";
    } else if (P == "serialize-warp") {
      O.Rust.SerializeWarp = true;
    } else if (P.consume_front("serialize-threshold=")) {
      uint64_t N;
      if (P.getAsInteger(10, N))
        return make_error<StringError>("klap: serialize-threshold needs a number", inconvertibleErrorCode());
      O.Rust.SerializeThreshold = N;
    } else if (P.consume_front("serialize-small-grid-threshold=")) {
      uint64_t N;
      if (P.getAsInteger(10, N))
        return make_error<StringError>("klap: serialize-small-grid-threshold needs a number", inconvertibleErrorCode());
      O.Rust.SerializeSmallGridThreshold = N;
    } else if (P.consume_front("warp-run-threshold=")) {
      uint64_t N;
      if (P.getAsInteger(10, N))
        return make_error<StringError>("klap: warp-run-threshold needs a number", inconvertibleErrorCode());
      O.Rust.WarpRunThreshold = N;
    } else if (P.consume_front("reduce-threshold=")) {
      uint64_t N;
      if (P.getAsInteger(10, N))
        return make_error<StringError>("klap: reduce-threshold needs a number", inconvertibleErrorCode());
      O.Rust.ReduceThreshold = N;
    } else if (P.consume_front("warp-run-grid-threads=")) {
      uint64_t N;
      if (P.getAsInteger(10, N))
        return make_error<StringError>("klap: warp-run-grid-threads needs a number", inconvertibleErrorCode());
      O.Rust.WarpRunGridThreads = N;
    } else if (P.consume_front("max-registers=")) {
      uint64_t N;
      if (P.getAsInteger(10, N) || (N != 0 && (N < MinMaxRegisters || N > MaxMaxRegisters)))
        return make_error<StringError>(Twine("klap: max-registers needs 0 or a number from ") + Twine(MinMaxRegisters) +
                                           " to " + Twine(MaxMaxRegisters),
                                       inconvertibleErrorCode());
      O.Rust.MaxRegisters = N;
    } else if (P == "block-reuse" || P == "no-block-reuse") {
      O.Rust.BlockReuse = P == "block-reuse";
    } else if (P == "grid-reuse" || P == "no-grid-reuse") {
      O.Rust.GridReuse = P == "grid-reuse";
    } else if (P.consume_front("grid-reuse-blocks=")) {
      unsigned N;
      if (P.getAsInteger(10, N))
        return make_error<StringError>("klap: grid-reuse-blocks needs a number (0: whole child grids)",
                                       inconvertibleErrorCode());
      O.Rust.GridReuse = O.Rust.GridReuse || N > 0;
      O.Rust.GridReuseBlocks = N;
    } else if (P == "grid-reuse-select") {
      Select = true;
    } else if (P.consume_front("block-reuse-queue=")) {
      unsigned N;
      if (P.getAsInteger(10, N) || N == 0)
        return make_error<StringError>("klap: block-reuse-queue needs a positive number", inconvertibleErrorCode());
      O.Rust.BlockReuseQueue = N;
    } else if (P.consume_front("promote=")) {
      auto Promote = parsePromote(P);
      if (!Promote)
        return make_error<StringError>(Twine("klap: promote must be ") + PromoteValues + ", not '" + P + "'",
                                       inconvertibleErrorCode());
      O.Rust.Promote = *Promote;
    } else if (P.consume_front("promote-pool=")) {
      unsigned N;
      if (P.getAsInteger(10, N) || N == 0 || N > MaxPromotePool)
        return make_error<StringError>(Twine("klap: promote-pool needs a number from 1 to ") + Twine(MaxPromotePool),
                                       inconvertibleErrorCode());
      O.Rust.PromotePool = N;
    } else if (P.consume_front("coarsen=")) {
      unsigned N;
      if (P.getAsInteger(10, N) || N > MaxCoarsen)
        return make_error<StringError>(Twine("klap: coarsen needs a number from 0 to ") + Twine(MaxCoarsen),
                                       inconvertibleErrorCode());
      O.Rust.Coarsen = N;
    } else if (P.consume_front("coarsen-sm-threads=")) {
      unsigned N;
      if (P.getAsInteger(10, N) || N > MaxCoarsenSMThreads || N % CoarsenSMThreadsUnit)
        return make_error<StringError>(Twine("klap: coarsen-sm-threads needs a multiple of 64 from 0 to ") +
                                           Twine(MaxCoarsenSMThreads),
                                       inconvertibleErrorCode());
      O.Rust.CoarsenSMThreads = N;
    } else if (P == "spawn") {
      O.Rust.Spawn = true;
    } else if (P.consume_front("spawn-launch-cycles=")) {
      if (P.getAsInteger(10, O.Rust.SpawnLaunchCycles))
        return make_error<StringError>("klap: spawn-launch-cycles needs a number", inconvertibleErrorCode());
    } else if (P.consume_front("spawn-max-threads=")) {
      if (P.getAsInteger(10, O.Rust.SpawnMaxThreads))
        return make_error<StringError>("klap: spawn-max-threads needs a number", inconvertibleErrorCode());
    } else if (P == "no-inline-runtime") {
      O.Rust.InlineRuntime = false;
    } else if (P.consume_front("pool-mib=")) {
      unsigned MiB;
      if (P.getAsInteger(10, MiB) || MiB == 0)
        return make_error<StringError>("klap: pool-mib needs a positive number", inconvertibleErrorCode());
      O.Rust.PoolBytes = uint64_t(MiB) << 20;
    } else {
      return make_error<StringError>("klap: unknown parameter '" + P.str() + "'", inconvertibleErrorCode());
    }
  }
  if (Select) {
    if (O.Rust.GridReuseBlocks != 0 && O.Rust.GridReuseBlocks != SelectPerTake)
      return make_error<StringError>("klap: grid-reuse-select chooses the blocks per take itself: not with grid-reuse-blocks",
                                     inconvertibleErrorCode());
    O.Rust.GridReuse = true;
    O.Rust.GridReuseBlocks = SelectPerTake;
  }
  if (O.Rust.GridReuse && O.Rust.Granularity < 3)
    return make_error<StringError>("klap: grid-reuse needs granularity=grid or auto: parent blocks take child grids "
                                   "from their grid scope",
                                   inconvertibleErrorCode());
  return O;
}

void addPipeline(ModulePassManager &MPM, KlapOptions O) {
  MPM.addPass(KlapPipelinePass(O.Rust));
  if (O.Rust.InlineRuntime)
    MPM.addPass(AlwaysInlinerPass());
}

// The module flag that asks the device link to run klap, with the options of the compile as klap<...>
// parameters. Error behaviour: units compiled with different klap options refuse to link.
constexpr char AtLinkFlag[] = "klap.at-link";

std::string toParams(const KlapOptions &O) {
  static const char *const Granularities[] = {"none", "warp", "block", "grid", "auto"};
  std::string S = std::string("granularity=") + Granularities[O.Rust.Granularity];
  S += O.Rust.MergeNullStream ? ";merge-null-stream" : ";no-merge-null-stream";
  S += O.Rust.SkipLone ? ";skip-lone-launches" : ";no-skip-lone-launches";
  S += O.Rust.Serialize ? ";serialize" : ";no-serialize";
  S += ";serialize-threshold=" + std::to_string(O.Rust.SerializeThreshold);
  S += ";serialize-small-grid-threshold=" + std::to_string(O.Rust.SerializeSmallGridThreshold);
  S += ";warp-run-threshold=" + std::to_string(O.Rust.WarpRunThreshold);
  S += ";warp-run-grid-threads=" + std::to_string(O.Rust.WarpRunGridThreads);
  S += ";reduce-threshold=" + std::to_string(O.Rust.ReduceThreshold);
  S += ";max-registers=" + std::to_string(O.Rust.MaxRegisters);
  if (O.Rust.SerializeWarp)
    S += ";serialize-warp";
  if (O.Rust.PoolBytes)
    S += ";pool-mib=" + std::to_string(O.Rust.PoolBytes >> 20);
  if (O.Rust.Trace)
    S += ";trace";
  static const char *const Promotions[] = {"none", "basic", "aggregate", "overlap", "all", "loop"};
  if (O.Rust.Promote < 6)
    S += std::string(";promote=") + Promotions[O.Rust.Promote];
  if (O.Rust.PromotePool != DefaultPromotePool)
    S += ";promote-pool=" + std::to_string(O.Rust.PromotePool);
  if (!O.Rust.InlineRuntime)
    S += ";no-inline-runtime";
  if (O.Rust.Coarsen != CoarsenUnset)
    S += ";coarsen=" + std::to_string(O.Rust.Coarsen);
  if (O.Rust.CoarsenSMThreads != DefaultCoarsenSMThreads)
    S += ";coarsen-sm-threads=" + std::to_string(O.Rust.CoarsenSMThreads);
  if (O.Rust.Spawn)
    S += ";spawn";
  if (O.Rust.SpawnLaunchCycles != DefaultSpawnLaunchCycles)
    S += ";spawn-launch-cycles=" + std::to_string(O.Rust.SpawnLaunchCycles);
  if (O.Rust.SpawnMaxThreads != DefaultSpawnMaxThreads)
    S += ";spawn-max-threads=" + std::to_string(O.Rust.SpawnMaxThreads);
  return S;
}

// At a compile that leaves klap to the device link: the options, for the link to find, and a remark on
// each launch (KLAP140).
struct KlapRecordForLinkPass : PassInfoMixin<KlapRecordForLinkPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    KlapCtx Ctx{M, FAM};
    if (klap_rust_note_left_to_link(MAM.getResult<KlapLaunchAnalysis>(M).Model.get(), &Ctx) < 0)
      reportFailure(M, "-klap-at-link");
    if (!M.getModuleFlag(AtLinkFlag))
      M.addModuleFlag(Module::Error, AtLinkFlag, MDString::get(M.getContext(), toParams(optionsFromCommandLine())));
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

// At the device link (full LTO): klap's pipeline on the linked module, where its units asked for it. The
// linker (clang-nvlink-wrapper) parses its LLVM options before it loads pass plugins, so klap's own
// options cannot be given there: they come from the compile, in the module flag.
struct KlapAtLinkPass : PassInfoMixin<KlapAtLinkPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    auto *Params = dyn_cast_or_null<MDString>(M.getModuleFlag(AtLinkFlag));
    if (!Params)
      return PreservedAnalyses::all();
    auto O = parseAggregateParams(Params->getString());
    if (!O)
      report_fatal_error(Twine("klap: the module's ") + AtLinkFlag + " flag: " + toString(O.takeError()),
                         /*gen_crash_diag=*/false);
    PreservedAnalyses PA = KlapPipelinePass(O->Rust).run(M, MAM);
    if (O->Rust.InlineRuntime) {
      MAM.invalidate(M, PA);
      PA.intersect(AlwaysInlinerPass().run(M, MAM));
    }
    return PA;
  }
  static bool isRequired() { return true; }
};

// klap-normalize alone: the pipeline at granularity none.
KlapRustOptions normalizeOnly() {
  KlapRustOptions O = optionsFromCommandLine().Rust;
  O.Granularity = 0;
  O.Serialize = false;
  O.BlockReuse = false;
  O.GridReuse = false;
  O.Promote = 0;
  return O;
}

} // namespace

extern "C" {

void klap_register_pass_builder_callbacks(PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback(
      [](ModuleAnalysisManager &MAM) { MAM.registerPass([] { return KlapLaunchAnalysis(); }); });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<klap-launches>") {
          MPM.addPass(KlapPrinterPass<klap_rust_print_launches, PrintLaunchesName>());
          return true;
        }
        if (Name == "print<klap-graph>") {
          MPM.addPass(KlapPrinterPass<klap_rust_print_graph, PrintGraphName>());
          return true;
        }
        if (Name == "klap-devrt-stubs") {
          MPM.addPass(KlapDevrtStubsPass());
          return true;
        }
        if (Name == "klap-normalize") {
          MPM.addPass(KlapPipelinePass(normalizeOnly()));
          return true;
        }
        if (Name == "klap" || (Name.starts_with("klap<") && Name.ends_with(">"))) {
          StringRef Params = Name == "klap" ? "" : Name.drop_front(5).drop_back(1);
          auto O = parseAggregateParams(Params);
          if (!O) {
            errs() << toString(O.takeError()) << "\n";
            return false;
          }
          addPipeline(MPM, *O);
          return true;
        }
        return false;
      });
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    if (DevrtStubsOpt)
      MPM.addPass(KlapDevrtStubsPass());
  });
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase Phase) {
    KlapOptions O = optionsFromCommandLine();
    if (AtLinkOpt && Phase == ThinOrFullLTOPhase::FullLTOPreLink) {
      MPM.addPass(KlapRecordForLinkPass());
      MPM.addPass(KlapPipelinePass(normalizeOnly()));
    } else if (O.Rust.Granularity != 0 || O.Rust.Serialize || O.Rust.BlockReuse ||
               (O.Rust.Promote != 0 && O.Rust.Promote != PromoteUnset))
      addPipeline(MPM, O);
    else if (NormalizeAtOptimizerLast)
      MPM.addPass(KlapPipelinePass(normalizeOnly()));
  });
  PB.registerFullLinkTimeOptimizationLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(KlapAtLinkPass()); });
}

unsigned klap_loop_depth(KlapCtx *C, LLVMValueRef I) {
  auto *Inst = unwrap<Instruction>(I);
  return C->FAM.getResult<LoopAnalysis>(*Inst->getFunction()).getLoopDepth(Inst->getParent());
}

bool klap_dominates(KlapCtx *C, LLVMValueRef A, LLVMValueRef B) {
  auto *IB = unwrap<Instruction>(B);
  return C->FAM.getResult<DominatorTreeAnalysis>(*IB->getFunction()).dominates(unwrap<Instruction>(A), IB);
}

// Whether some path of the CFG leads from From to To (from From back to itself when they are one) without
// executing Avoid. LLVM's isPotentiallyReachable takes its dominator and loop shortcuts through excluded
// blocks, and answers yes past 32 blocks: an exact walk of the blocks instead.
bool klap_reachable_avoiding(KlapCtx *, LLVMValueRef From, LLVMValueRef To, LLVMValueRef Avoid) {
  auto *F = unwrap<Instruction>(From), *T = unwrap<Instruction>(To), *A = unwrap<Instruction>(Avoid);
  BasicBlock *FromBB = F->getParent(), *ToBB = T->getParent(), *AvoidBB = A->getParent();
  auto Between = [&](Instruction *Start, Instruction *End) {
    // Whether A lies on the straight path from Start (exclusive; null: the block's start) to End
    // (exclusive; null: the block's end) within A's block.
    return (!Start || Start->comesBefore(A)) && (!End || A->comesBefore(End)) && A != Start;
  };
  if (FromBB == ToBB && F != T && F->comesBefore(T) && !(AvoidBB == FromBB && Between(F, T)))
    return true;
  if (AvoidBB == FromBB && Between(F, nullptr))
    return false;
  SmallVector<BasicBlock *, 16> Work(successors(FromBB));
  SmallPtrSet<BasicBlock *, 32> Seen;
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (!Seen.insert(BB).second)
      continue;
    if (BB == ToBB && !(AvoidBB == ToBB && Between(nullptr, T)))
      return true;
    if (BB == AvoidBB)
      continue;
    Work.append(succ_begin(BB), succ_end(BB));
  }
  return false;
}

// True when threads of one warp can disagree on whether (or how often) they reach I: some block with a
// divergent branch can reach I without I post-dominating it. That covers divergent branches, divergent
// loop exits and everything nested in them. Branches on the Ignored conditions (the launch's own
// parameter-buffer null checks) do not count: every launching thread takes the launch side.
bool klap_control_divergent(KlapCtx *C, LLVMValueRef I, LLVMValueRef *Ignored, unsigned NumIgnored) {
  auto *Inst = unwrap<Instruction>(I);
  Function &F = *Inst->getFunction();
  auto &UI = C->FAM.getResult<UniformityInfoAnalysis>(F);
  if (!UI.hasDivergence())
    return false;
  auto &PDT = C->FAM.getResult<PostDominatorTreeAnalysis>(F);
  auto &DT = C->FAM.getResult<DominatorTreeAnalysis>(F);
  auto &LI = C->FAM.getResult<LoopAnalysis>(F);
  BasicBlock *Site = Inst->getParent();
  for (BasicBlock &B : F) {
    if (!UI.hasDivergentTerminator(B) || PDT.dominates(Site, &B))
      continue;
    auto *Br = dyn_cast<BranchInst>(B.getTerminator());
    if (Br && Br->isConditional() &&
        llvm::is_contained(ArrayRef<LLVMValueRef>(Ignored, NumIgnored), wrap(Br->getCondition())))
      continue;
    if (isPotentiallyReachable(B.getTerminator(), Inst, nullptr, &DT, &LI))
      return true;
  }
  return false;
}

// Over which threads an index register's value is the same (the scope column of index_registers.def).
enum class RegisterScope { thread, block, grid };

// Whether the threads of a block agree on V. UniformityInfo alone takes every call's result for
// divergent, blockDim's and blockIdx's reads included.
static bool blockUniform(Value *V, UniformityInfo &UI, unsigned Depth) {
  if (isa<Constant>(V) || !UI.isDivergent(V))
    return true;
  if (Depth > 8)
    return false;
  if (auto *II = dyn_cast<IntrinsicInst>(V))
    switch (II->getIntrinsicID()) {
      // The index registers whose value the threads of a block share (runtime/index_registers.def).
#define KLAP_INDEX_REGISTER(Register, Dimension, Scope)                                                             \
  case Intrinsic::nvvm_read_ptx_sreg_##Register##_##Dimension:                                                     \
    return RegisterScope::Scope != RegisterScope::thread;
#include "index_registers.def"
#undef KLAP_INDEX_REGISTER
    // Arithmetic written as intrinsics (min(n, first + chunk)): uniform where the operands are.
    case Intrinsic::smin:
    case Intrinsic::smax:
    case Intrinsic::umin:
    case Intrinsic::umax:
    case Intrinsic::abs:
    case Intrinsic::ctpop:
    case Intrinsic::ctlz:
    case Intrinsic::cttz:
    case Intrinsic::fshl:
    case Intrinsic::fshr:
    case Intrinsic::fabs:
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
      return llvm::all_of(II->args(), [&](Value *Op) { return blockUniform(Op, UI, Depth + 1); });
    default:
      return false;
    }
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !(isa<BinaryOperator>(I) || isa<CastInst>(I) || isa<CmpInst>(I) || isa<SelectInst>(I)))
    return false;
  return llvm::all_of(I->operands(), [&](Value *Op) { return blockUniform(Op, UI, Depth + 1); });
}

// Whether some path leads from From to To without entering Avoid (null: avoid nothing). From == To counts.
static bool reachesAvoiding(BasicBlock *From, BasicBlock *To, BasicBlock *Avoid) {
  SmallVector<BasicBlock *, 16> Work{From};
  SmallPtrSet<BasicBlock *, 32> Seen;
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == Avoid || !Seen.insert(BB).second)
      continue;
    if (BB == To)
      return true;
    llvm::append_range(Work, successors(BB));
  }
  return false;
}

// The condition of a two-way branch or a switch, else null.
static Value *branchCondition(Instruction *T) {
  if (auto *Br = dyn_cast<BranchInst>(T))
    return Br->isConditional() && Br->getSuccessor(0) != Br->getSuccessor(1) ? Br->getCondition() : nullptr;
  if (auto *Sw = dyn_cast<SwitchInst>(T))
    return Sw->getCondition();
  return nullptr;
}

// Whether threads of a block that took different successors of a branch they may disagree on can meet
// at Join still apart: Join is the branch's reconvergence point, or lies on the way from one successor
// to it while another successor also reaches Join. A phi there may differ between the threads although
// its incoming values do not.
static bool divergentJoin(BasicBlock *Join, UniformityInfo &UI, PostDominatorTree &PDT) {
  for (BasicBlock &B : *Join->getParent()) {
    Value *Cond = branchCondition(B.getTerminator());
    if (!Cond || blockUniform(Cond, UI, 0))
      continue;
    DomTreeNode *Node = PDT.getNode(&B);
    BasicBlock *Meet = Node && Node->getIDom() ? Node->getIDom()->getBlock() : nullptr;
    if (Join == Meet)
      return true;
    SmallVector<BasicBlock *, 4> Succs(successors(&B));
    for (BasicBlock *S : Succs)
      if (reachesAvoiding(S, Join, Meet) &&
          llvm::any_of(Succs, [&](BasicBlock *Other) { return Other != S && reachesAvoiding(Other, Join, nullptr); }))
        return true;
  }
  return false;
}

// blockUniform, with phis: a phi is uniform where its incoming values are and no branch the threads
// may disagree on makes its block a join (loop counters derived from blockDim, as in a tree reduction).
static bool blockUniformWithPhis(Value *V, UniformityInfo &UI, PostDominatorTree &PDT, SmallPtrSetImpl<PHINode *> &Open,
                                 unsigned Depth) {
  if (blockUniform(V, UI, 0))
    return true;
  if (Depth > 8)
    return false;
  if (auto *Phi = dyn_cast<PHINode>(V)) {
    if (!Open.insert(Phi).second)
      return true;  // A cycle through a loop's phis: uniform if the rest of it is.
    return !divergentJoin(Phi->getParent(), UI, PDT) &&
           llvm::all_of(Phi->incoming_values(),
                        [&](Value *In) { return blockUniformWithPhis(In, UI, PDT, Open, Depth + 1); });
  }
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !(isa<BinaryOperator>(I) || isa<CastInst>(I) || isa<CmpInst>(I) || isa<SelectInst>(I)))
    return false;
  return llvm::all_of(I->operands(), [&](Value *Op) { return blockUniformWithPhis(Op, UI, PDT, Open, Depth + 1); });
}

// A branch after which some threads of a block can reach none of Barriers while others still reach
// one, on a condition they may disagree on (an early return before a barrier); null if there is none.
LLVMValueRef klap_exit_before_barrier(KlapCtx *C, LLVMValueRef *Barriers, unsigned NumBarriers) {
  if (NumBarriers == 0)
    return nullptr;
  Function &F = *unwrap<Instruction>(Barriers[0])->getFunction();
  auto &UI = C->FAM.getResult<UniformityInfoAnalysis>(F);
  auto &PDT = C->FAM.getResult<PostDominatorTreeAnalysis>(F);
  // Before: the blocks whose terminator can lead to a barrier; Reach: those and the barriers' blocks, the
  // blocks from whose start a barrier can be reached.
  SmallPtrSet<BasicBlock *, 32> Before, Reach;
  SmallVector<BasicBlock *, 16> Work;
  for (unsigned K = 0; K < NumBarriers; ++K) {
    BasicBlock *BB = unwrap<Instruction>(Barriers[K])->getParent();
    Reach.insert(BB);
    llvm::append_range(Work, predecessors(BB));
  }
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (Before.insert(BB).second) {
      Reach.insert(BB);
      llvm::append_range(Work, predecessors(BB));
    }
  }
  for (BasicBlock *BB : Before) {
    Instruction *T = BB->getTerminator();
    Value *Cond = branchCondition(T);
    if (!Cond || llvm::all_of(successors(BB), [&](BasicBlock *S) { return Reach.contains(S); }))
      continue;
    SmallPtrSet<PHINode *, 8> Open;
    if (!blockUniformWithPhis(Cond, UI, PDT, Open, 0))
      return wrap(T);
  }
  return nullptr;
}

// Whether `Cond`, taken as `Taken`, implies threadIdx.x == V for a value V the threads agree on.
static bool impliesTidXEquals(Value *Cond, bool Taken, UniformityInfo &UI, unsigned Depth) {
  if (Depth > 8)
    return false;
  Value *A, *B;
  if (match(Cond, m_Not(m_Value(A))))
    return impliesTidXEquals(A, !Taken, UI, Depth + 1);
  if (Taken && match(Cond, m_LogicalAnd(m_Value(A), m_Value(B))))
    return impliesTidXEquals(A, true, UI, Depth + 1) || impliesTidXEquals(B, true, UI, Depth + 1);
  if (!Taken && match(Cond, m_LogicalOr(m_Value(A), m_Value(B))))
    return impliesTidXEquals(A, false, UI, Depth + 1) || impliesTidXEquals(B, false, UI, Depth + 1);
  auto *Cmp = dyn_cast<ICmpInst>(Cond);
  if (!Cmp || (Taken ? Cmp->getPredicate() : Cmp->getInversePredicate()) != CmpInst::ICMP_EQ)
    return false;
  // An extension keeps distinct values distinct; a truncation would not.
  auto IsTidX = [](Value *V) {
    while (isa<ZExtInst>(V) || isa<SExtInst>(V))
      V = cast<Instruction>(V)->getOperand(0);
    auto *II = dyn_cast<IntrinsicInst>(V);
    return II && II->getIntrinsicID() == Intrinsic::nvvm_read_ptx_sreg_tid_x;
  };
  Value *L = Cmp->getOperand(0), *R = Cmp->getOperand(1);
  return (IsTidX(L) && blockUniform(R, UI, 0)) || (IsTidX(R) && blockUniform(L, UI, 0));
}

// Whether only threads whose threadIdx.x equals one value they all agree on reach I: every path to it
// takes a branch edge whose condition implies it (`threadIdx.x == 0 && ...`, `threadIdx.x ==
// blockDim.x - 1`). With one-dimensional blocks that is one thread per block.
bool klap_lone_launcher(KlapCtx *C, LLVMValueRef I) {
  auto *Inst = unwrap<Instruction>(I);
  Function &F = *Inst->getFunction();
  auto &UI = C->FAM.getResult<UniformityInfoAnalysis>(F);
  auto &DT = C->FAM.getResult<DominatorTreeAnalysis>(F);
  BasicBlock *Site = Inst->getParent();
  for (DomTreeNode *N = DT.getNode(Site); N && N->getIDom(); N = N->getIDom()) {
    BasicBlock *D = N->getIDom()->getBlock();
    auto *Br = dyn_cast<BranchInst>(D->getTerminator());
    if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
      continue;
    for (unsigned S = 0; S < 2; ++S)
      if (DT.dominates(BasicBlockEdge(D, Br->getSuccessor(S)), Site) &&
          impliesTidXEquals(Br->getCondition(), S == 0, UI, 0))
        return true;
  }
  return false;
}

// Where the user wrote I: launches come from the CUDA headers' inlined wrappers, so the location of
// interest is the outermost call site, not the header line.
static DebugLoc userLocation(const Instruction *I) {
  DILocation *L = I->getDebugLoc().get();
  while (L && L->getInlinedAt())
    L = L->getInlinedAt();
  return DebugLoc(L);
}

void klap_remark(KlapCtx *C, unsigned Kind, LLVMValueRef I, const char *Id, const char *Msg) {
  auto *Inst = unwrap<Instruction>(I);
  auto &ORE = C->FAM.getResult<OptimizationRemarkEmitterAnalysis>(*Inst->getFunction());
  DiagnosticLocation Loc(userLocation(Inst));
  const BasicBlock *Block = Inst->getParent();
  switch (Kind) {
  case 0:
    ORE.emit([&] { return OptimizationRemark("klap", Id, Loc, Block) << Msg; });
    break;
  case 1:
    ORE.emit([&] { return OptimizationRemarkMissed("klap", Id, Loc, Block) << Msg; });
    break;
  default:
    ORE.emit([&] { return OptimizationRemarkAnalysis("klap", Id, Loc, Block) << Msg; });
    break;
  }
}

// The user's source location of I (see userLocation); false without debug info.
bool klap_user_location(LLVMValueRef I, char **File, unsigned *Line, unsigned *Col) {
  DebugLoc L = userLocation(unwrap<Instruction>(I));
  if (!L)
    return false;
  *File = LLVMCreateMessage(L->getFilename().str().c_str());
  *Line = L.getLine();
  *Col = L.getCol();
  return true;
}

enum KlapStatistic {
  RecognizedLaunch = 0,
  UnrecognizedLaunch = 1,
  NormalizedLaunch = 2,
  AggregatedLaunch = 3,
  SerializedLaunch = 4,
  AggregatedMalloc = 5,
  BlockReusedLaunch = 6,
  RegisterCappedKernel = 7,
  ReadOnlyParam = 8,
  CoarsenedChild = 9,
  GridReusedLaunch = 10,
  NoRecordRunInThread = 11
};

void klap_count(unsigned Which, unsigned N) {
  switch (Which) {
  case RecognizedLaunch:
    NumLaunchesRecognized += N;
    break;
  case UnrecognizedLaunch:
    NumLaunchesUnrecognized += N;
    break;
  case NormalizedLaunch:
    NumLaunchesNormalized += N;
    break;
  case AggregatedLaunch:
    NumLaunchesAggregated += N;
    break;
  case SerializedLaunch:
    NumLaunchesSerialized += N;
    break;
  case AggregatedMalloc:
    NumMallocsAggregated += N;
    break;
  case BlockReusedLaunch:
    NumLaunchesBlockReused += N;
    break;
  case RegisterCappedKernel:
    NumKernelsRegisterCapped += N;
    break;
  case ReadOnlyParam:
    NumParamsMarkedReadOnly += N;
    break;
  case CoarsenedChild:
    NumChildrenCoarsened += N;
    break;
  case GridReusedLaunch:
    NumLaunchesGridReused += N;
    break;
  case NoRecordRunInThread:
    NumLaunchesRunInThreadWithoutRecord += N;
    break;
  }
}

// Returns the base pointer of P and the constant byte offset from it, through GEPs and casts, instructions
// and constant expressions alike (`getelementptr (i8, ptr @g, i64 4)` is @g + 4).
LLVMValueRef klap_strip_constant_offsets(LLVMModuleRef M, LLVMValueRef P, int64_t *Offset) {
  const DataLayout &DL = unwrap(M)->getDataLayout();
  Value *V = unwrap(P);
  APInt Off(DL.getIndexTypeSizeInBits(V->getType()), 0);
  Value *Base = V->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  *Offset = Off.getSExtValue();
  return wrap(Base);
}

// The object P points into (LLVM's getUnderlyingObject: through GEPs, casts and the like).
LLVMValueRef klap_underlying_object(LLVMValueRef P) { return wrap(getUnderlyingObject(unwrap(P))); }

// Whether I may write any of the Size bytes at Ptr (UINT64_MAX: any byte of the object Ptr points into), as
// LLVM's alias analysis sees it.
bool klap_may_write(KlapCtx *C, LLVMValueRef I, LLVMValueRef Ptr, uint64_t Size) {
  auto *Inst = unwrap<Instruction>(I);
  if (!Inst->mayWriteToMemory())
    return false;
  auto &AA = C->FAM.getResult<AAManager>(*Inst->getFunction());
  LocationSize Bytes = Size == UINT64_MAX ? LocationSize::beforeOrAfterPointer() : LocationSize::precise(Size);
  MemoryLocation Loc(unwrap(Ptr), Bytes);
  // A store or an atomic writes its own location only; alias analysis takes an atomic ordered stronger than
  // monotonic for a write of everything (the order it imposes), which is not what is asked here.
  if (auto Own = MemoryLocation::getOrNone(Inst))
    return !AA.isNoAlias(*Own, Loc);
  return isModSet(AA.getModRefInfo(Inst, Loc));
}

// Where a promoted kernel waits for its parent when its prologue overlaps the parent (promotion with
// overlap): the latest point that every thread of the block passes exactly once (a block that post-
// dominates the entry, in no loop), with none of Must (the instructions that may run only after the wait)
// nor any return on a path from the entry to it. The post-dominators of the entry are walked in order; a
// point that some Must instruction can be reached before stops the walk, as it stops every later one
// (a path to the Must instruction that avoided an earlier post-dominator would avoid it on its way to
// the return too). Returns the instruction to wait before; the entry's first insertion point where
// nothing can come before the wait. Never a phi: a block whose phis must wait ends the walk.
LLVMValueRef klap_wait_point(KlapCtx *C, LLVMValueRef Fn, LLVMValueRef *Must, unsigned NumMust) {
  Function &F = *unwrap<Function>(Fn);
  auto &PDT = C->FAM.getResult<PostDominatorTreeAnalysis>(F);
  auto &LI = C->FAM.getResult<LoopAnalysis>(F);
  SmallPtrSet<Instruction *, 32> MustSet;
  for (unsigned K = 0; K < NumMust; ++K)
    MustSet.insert(unwrap<Instruction>(Must[K]));
  for (BasicBlock &B : F)
    if (isa<ReturnInst>(B.getTerminator()) || isa<UnreachableInst>(B.getTerminator()))
      MustSet.insert(B.getTerminator());
  BasicBlock &Entry = F.getEntryBlock();
  // Whether a Must instruction can run before At: a walk from the entry that stops at At.
  auto MustBefore = [&](Instruction *At) {
    SmallVector<BasicBlock *, 16> Work{&Entry};
    SmallPtrSet<BasicBlock *, 32> Seen;
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      if (!Seen.insert(BB).second)
        continue;
      bool Blocked = false;
      for (Instruction &I : *BB) {
        if (&I == At) {
          Blocked = true;
          break;
        }
        if (MustSet.count(&I))
          return true;
      }
      if (!Blocked)
        llvm::append_range(Work, successors(BB));
    }
    return false;
  };
  Instruction *Best = &*Entry.getFirstInsertionPt();
  for (DomTreeNode *N = PDT.getNode(&Entry); N && N->getBlock(); N = N->getIDom()) {
    BasicBlock *B = N->getBlock();
    if (LI.getLoopFor(B))
      continue;
    Instruction *Cand = B->getTerminator();
    for (Instruction &I : *B)
      if (MustSet.count(&I)) {
        Cand = &I;
        break;
      }
    if (isa<PHINode>(Cand) || (B == &Entry && Cand->comesBefore(Best)) || MustBefore(Cand))
      break;
    Best = Cand;
    if (MustSet.count(Cand))
      break;
  }
  return wrap(Best);
}

// The value as it is written as an operand in textual IR (%7, @k, i32 3 without the type).
char *klap_operand_string(LLVMValueRef V) {
  std::string S;
  raw_string_ostream OS(S);
  Value *Val = unwrap(V);
  const Module *M = nullptr;
  if (auto *I = dyn_cast<Instruction>(Val))
    M = I->getModule();
  else if (auto *A = dyn_cast<Argument>(Val))
    M = A->getParent()->getParent();
  Val->printAsOperand(OS, /*PrintType=*/false, M);
  return LLVMCreateMessage(S.c_str());
}

// Splits the block before Before and makes it conditional on Cond; returns the branch that ends the
// new conditional block, before which the conditional code goes.
LLVMValueRef klap_split_if_then(LLVMValueRef Cond, LLVMValueRef Before) {
  Instruction *Term =
      SplitBlockAndInsertIfThen(unwrap(Cond), unwrap<Instruction>(Before)->getIterator(), /*Unreachable=*/false);
  return wrap(Term);
}

// Splits Before's block before Before (the phis of its successors follow); returns the new block, which
// starts with Before. The old block ends with a branch to it.
LLVMBasicBlockRef klap_split_block(LLVMValueRef Before) {
  auto *I = unwrap<Instruction>(Before);
  return wrap(I->getParent()->splitBasicBlock(I->getIterator()));
}

void klap_errs(const char *S, size_t N) { errs().write(S, N); }

// Links the device runtime's bitcode into M, only what M uses, and makes what it brought internal so
// that several translation units of one program each keep their own copy. False with a message in
// *Error (LLVMCreateMessage) on failure.
bool klap_link_runtime(LLVMModuleRef Dest, const char *Data, size_t Size, char **Error) {
  Module &M = *unwrap(Dest);
  auto Buffer = MemoryBuffer::getMemBuffer(StringRef(Data, Size), "klap_rt.bc", false);
  auto Runtime = parseBitcodeFile(Buffer->getMemBufferRef(), M.getContext());
  if (!Runtime) {
    *Error = LLVMCreateMessage(toString(Runtime.takeError()).c_str());
    return false;
  }
  // clang lists device variables as used; here only what M needs may come along.
  if (GlobalVariable *Used = (*Runtime)->getGlobalVariable("llvm.compiler.used"))
    Used->eraseFromParent();
  (*Runtime)->setTargetTriple(M.getTargetTriple());
  (*Runtime)->setDataLayout(M.getDataLayout());
  StringSet<> Provided;
  for (GlobalValue &G : (*Runtime)->global_values())
    if (!G.isDeclaration())
      Provided.insert(G.getName());
  if (Linker::linkModules(M, std::move(*Runtime), Linker::LinkOnlyNeeded)) {
    *Error = LLVMCreateMessage("linking the klap device runtime failed");
    return false;
  }
  // The host's pool setting stays the program's one weak symbol: the host finds it by name.
  for (GlobalValue &G : M.global_values())
    if (!G.isDeclaration() && Provided.contains(G.getName()) && G.getName() != "klap_host_pool")
      G.setLinkage(GlobalValue::InternalLinkage);
  return true;
}

// Clones the body of From into To (which already holds an entry block): the parameters of From become
// Args, calls keep their targets. To's attributes become From's function attributes.
void klap_clone_body_into(LLVMValueRef From, LLVMValueRef To, LLVMValueRef *Args, unsigned NumArgs) {
  Function *F = unwrap<Function>(From), *T = unwrap<Function>(To);
  ValueToValueMapTy VMap;
  for (unsigned I = 0; I < NumArgs; ++I)
    VMap[F->getArg(I)] = unwrap(Args[I]);
  SmallVector<ReturnInst *, 4> Returns;
  CallingConv::ID CC = T->getCallingConv();
  CloneFunctionInto(T, F, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns, ".klap");
  T->setCallingConv(CC);
}

// A copy of function F named Name, same signature.
LLVMValueRef klap_clone_function(LLVMValueRef F, const char *Name) {
  ValueToValueMapTy VMap;
  Function *C = CloneFunction(unwrap<Function>(F), VMap);
  C->setName(Name);
  return wrap(C);
}

// F becomes a declaration: no body, external linkage, no comdat (a declaration may not have one).
void klap_delete_body(LLVMValueRef F) {
  Function *Fn = unwrap<Function>(F);
  Fn->deleteBody();
  Fn->setComdat(nullptr);
}

LLVMModuleRef klap_ctx_module(KlapCtx *C) { return wrap(&C->M); }

// After a step of the pipeline changed the IR, within one pass: the function analyses cached so far
// (dominators, loops, uniformity) describe the IR before the change.
void klap_invalidate_analyses(KlapCtx *C) {
  for (Function &F : C->M)
    C->FAM.invalidate(F, PreservedAnalyses::none());
}

} // extern "C"
