//! klap's optimization remarks. Each has a stable ID, documented in docs/remarks.md; the message ends
//! with the ID in brackets, as LLVM's OpenMPOpt does, so users can search for it.

use crate::llvm::{Ctx, InstructionValue, RemarkKind};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Remark {
    Recognized,
    BadSignature,
    UnknownBuffer,
    BufferEscapes,
    UnknownOffset,
    UnknownChild,
    NotAKernel,
    ConditionalWrite,
    OverlappingWrites,
    LayoutMismatch,
    LaunchInDeviceFunction,
    Normalized,
    NotNormalized,
    DeclaredKernel,
    DevrtStubReplaced,
    DevrtStubKept,
    LeftToLink,
    Aggregated,
    SingleLaunchStream,
    StreamNotAggregated,
    NullStreamKept,
    ChildNotDefined,
    WarpFallback,
    WarpWithTail,
    LoneLauncher,
    WarpScope,
    CalleeScope,
    WarpLoopKept,
    RunInThreadWithoutRecord,
    Serialized,
    SerialChildCollective,
    SerialStreamKept,
    SerialTooLarge,
    SerialChildNotDefined,
    SerialChildLoops,
    SerialChildAtomics,
    SerialConfigRefused,
    SerialBesideRuntimeCalls,
    WarpRun,
    SerializedReduced,
    SpawnControlled,
    LastErrorFolded,
    BlockReused,
    ReuseStreamKept,
    ReuseChildUnfit,
    ReuseParentUnfit,
    ReuseChildNotDefined,
    ReuseSharedMemory,
    GridReused,
    GridReuseUnfit,
    AlreadyTransformed,
    IndexReadNotRemapped,
    ThreadEndWithoutReturn,
    MallocAggregated,
    MallocTargetUnknown,
    MallocEscapes,
    MallocFreeMixed,
    Promoted,
    PromoteInDeviceFunction,
    PromoteNotSelf,
    PromoteGridNotOneBlock,
    PromoteInLoop,
    PromoteNotOneThread,
    PromoteStream,
    PromoteOtherLaunches,
    PromoteConfigNotAtEntry,
    PromoteThreadEnd,
    PromoteParameters,
    PromotedKept,
    PromotedPool,
    PoolConfigVaries,
    PoolIndexRead,
    PromotedOverlap,
    PromoteNoOverlap,
    PromoteLaunchedElsewhere,
    PromotedLoop,
    PromoteNoLoop,
    RegistersCapped,
    RegistersKept,
    ReadOnlyParam,
    ReadOnlyKept,
    Coarsened,
    NotCoarsened,
}

impl Remark {
    pub fn id(self) -> &'static str {
        match self {
            Remark::Recognized => "KLAP100",
            Remark::BadSignature => "KLAP101",
            Remark::UnknownBuffer => "KLAP102",
            Remark::BufferEscapes => "KLAP103",
            Remark::UnknownOffset => "KLAP104",
            Remark::UnknownChild => "KLAP105",
            Remark::NotAKernel => "KLAP106",
            Remark::ConditionalWrite => "KLAP107",
            Remark::OverlappingWrites => "KLAP108",
            Remark::LayoutMismatch => "KLAP109",
            Remark::LaunchInDeviceFunction => "KLAP110",
            Remark::Normalized => "KLAP120",
            Remark::NotNormalized => "KLAP121",
            Remark::DeclaredKernel => "KLAP122",
            Remark::DevrtStubReplaced => "KLAP130",
            Remark::DevrtStubKept => "KLAP131",
            Remark::LeftToLink => "KLAP140",
            Remark::Aggregated => "KLAP200",
            Remark::SingleLaunchStream => "KLAP209",
            Remark::StreamNotAggregated => "KLAP201",
            Remark::NullStreamKept => "KLAP202",
            Remark::ChildNotDefined => "KLAP203",
            Remark::WarpFallback => "KLAP204",
            Remark::WarpWithTail => "KLAP205",
            Remark::LoneLauncher => "KLAP206",
            Remark::WarpScope => "KLAP213",
            Remark::CalleeScope => "KLAP214",
            Remark::WarpLoopKept => "KLAP208",
            Remark::RunInThreadWithoutRecord => "KLAP215",
            Remark::Serialized => "KLAP300",
            Remark::SerialChildCollective => "KLAP301",
            Remark::SerialStreamKept => "KLAP302",
            Remark::SerialTooLarge => "KLAP303",
            Remark::SerialChildNotDefined => "KLAP304",
            Remark::SerialChildLoops => "KLAP305",
            Remark::SerialChildAtomics => "KLAP306",
            Remark::SerialConfigRefused => "KLAP318",
            Remark::SerialBesideRuntimeCalls => "KLAP323",
            Remark::WarpRun => "KLAP308",
            Remark::SerializedReduced => "KLAP321",
            Remark::SpawnControlled => "KLAP309",
            Remark::LastErrorFolded => "KLAP307",
            Remark::BlockReused => "KLAP310",
            Remark::ReuseStreamKept => "KLAP311",
            Remark::ReuseChildUnfit => "KLAP312",
            Remark::ReuseParentUnfit => "KLAP313",
            Remark::ReuseChildNotDefined => "KLAP314",
            Remark::ReuseSharedMemory => "KLAP316",
            Remark::GridReused => "KLAP319",
            Remark::GridReuseUnfit => "KLAP320",
            Remark::AlreadyTransformed => "KLAP210",
            Remark::IndexReadNotRemapped => "KLAP211",
            Remark::ThreadEndWithoutReturn => "KLAP212",
            Remark::MallocAggregated => "KLAP500",
            Remark::MallocTargetUnknown => "KLAP501",
            Remark::MallocEscapes => "KLAP502",
            Remark::MallocFreeMixed => "KLAP503",
            Remark::Promoted => "KLAP400",
            Remark::PromoteInDeviceFunction => "KLAP401",
            Remark::PromoteNotSelf => "KLAP402",
            Remark::PromoteGridNotOneBlock => "KLAP403",
            Remark::PromoteInLoop => "KLAP404",
            Remark::PromoteNotOneThread => "KLAP405",
            Remark::PromoteStream => "KLAP406",
            Remark::PromoteOtherLaunches => "KLAP407",
            Remark::PromoteConfigNotAtEntry => "KLAP408",
            Remark::PromoteThreadEnd => "KLAP409",
            Remark::PromoteParameters => "KLAP410",
            Remark::PromotedKept => "KLAP411",
            Remark::PromotedPool => "KLAP412",
            Remark::PoolConfigVaries => "KLAP413",
            Remark::PoolIndexRead => "KLAP414",
            Remark::PromotedOverlap => "KLAP415",
            Remark::PromoteNoOverlap => "KLAP416",
            Remark::PromoteLaunchedElsewhere => "KLAP417",
            Remark::PromotedLoop => "KLAP418",
            Remark::PromoteNoLoop => "KLAP419",
            Remark::RegistersCapped => "KLAP600",
            Remark::RegistersKept => "KLAP601",
            Remark::ReadOnlyParam => "KLAP610",
            Remark::ReadOnlyKept => "KLAP611",
            Remark::Coarsened => "KLAP620",
            Remark::NotCoarsened => "KLAP621",
        }
    }

    /// The reason a launch is left unrecognized, as `print<klap-launches>` names it.
    pub fn reason(self) -> &'static str {
        match self {
            Remark::BadSignature => "bad-signature",
            Remark::UnknownBuffer => "unknown-buffer",
            Remark::BufferEscapes => "buffer-escapes",
            Remark::UnknownOffset => "unknown-offset",
            Remark::UnknownChild => "unknown-child",
            Remark::NotAKernel => "not-a-kernel",
            Remark::ConditionalWrite => "conditional-write",
            Remark::OverlappingWrites => "overlapping-writes",
            Remark::LayoutMismatch => "layout-mismatch",
            _ => "other",
        }
    }

    pub fn kind(self) -> RemarkKind {
        match self {
            Remark::Recognized
            | Remark::LaunchInDeviceFunction
            | Remark::WarpFallback
            | Remark::WarpScope
            | Remark::CalleeScope
            | Remark::RunInThreadWithoutRecord
            | Remark::AlreadyTransformed
            | Remark::LeftToLink
            | Remark::PromotedKept => RemarkKind::Analysis,
            Remark::Normalized
            | Remark::DeclaredKernel
            | Remark::DevrtStubReplaced
            | Remark::Aggregated
            | Remark::SingleLaunchStream
            | Remark::Serialized
            | Remark::SpawnControlled
            | Remark::WarpRun
            | Remark::SerializedReduced
            | Remark::LastErrorFolded
            | Remark::MallocAggregated
            | Remark::BlockReused
            | Remark::GridReused
            | Remark::Promoted
            | Remark::PromotedPool
            | Remark::PromotedOverlap
            | Remark::PromotedLoop
            | Remark::RegistersCapped
            | Remark::ReadOnlyParam
            | Remark::Coarsened => RemarkKind::Passed,
            _ => RemarkKind::Missed,
        }
    }

    /// What a missed remark says before its detail.
    fn lead(self) -> &'static str {
        match self {
            Remark::Recognized | Remark::LaunchInDeviceFunction | Remark::Normalized | Remark::DeclaredKernel | Remark::DevrtStubReplaced => "",
            Remark::Aggregated | Remark::SingleLaunchStream | Remark::WarpFallback | Remark::WarpScope | Remark::CalleeScope | Remark::RunInThreadWithoutRecord | Remark::AlreadyTransformed | Remark::Serialized | Remark::SpawnControlled | Remark::WarpRun | Remark::SerializedReduced | Remark::LastErrorFolded => "",
            Remark::MallocAggregated => "",
            Remark::MallocTargetUnknown | Remark::MallocEscapes | Remark::MallocFreeMixed => "cudaMalloc not aggregated: ",
            Remark::BlockReused => "",
            Remark::ReuseStreamKept
            | Remark::ReuseChildUnfit
            | Remark::ReuseParentUnfit
            | Remark::ReuseChildNotDefined
            | Remark::ReuseSharedMemory => "launch not reused by its block: ",
            Remark::GridReused => "",
            Remark::GridReuseUnfit => "child grids not run by parent blocks: ",
            Remark::Promoted | Remark::PromotedKept | Remark::PromotedPool | Remark::PromotedOverlap | Remark::PromotedLoop => "",
            Remark::PromoteNoLoop => "launch not promoted into a loop: ",
            Remark::PromoteNoOverlap => "promoted without overlap: ",
            Remark::PoolConfigVaries | Remark::PoolIndexRead => "launch not promoted with aggregation: ",
            Remark::PromoteInDeviceFunction
            | Remark::PromoteNotSelf
            | Remark::PromoteGridNotOneBlock
            | Remark::PromoteInLoop
            | Remark::PromoteNotOneThread
            | Remark::PromoteStream
            | Remark::PromoteOtherLaunches
            | Remark::PromoteConfigNotAtEntry
            | Remark::PromoteThreadEnd
            | Remark::PromoteParameters
            | Remark::PromoteLaunchedElsewhere => "launch not promoted: ",
            Remark::SerialChildCollective
            | Remark::SerialStreamKept
            | Remark::SerialTooLarge
            | Remark::SerialChildNotDefined
            | Remark::SerialChildLoops
            | Remark::SerialChildAtomics
            | Remark::SerialConfigRefused
            | Remark::SerialBesideRuntimeCalls => {
                "launch not serialized: "
            }
            Remark::NotNormalized => "V1 launch left in the V1 form: ",
            Remark::RegistersCapped => "",
            Remark::RegistersKept => "registers not capped: ",
            Remark::ReadOnlyParam => "",
            Remark::ReadOnlyKept => "parameter not marked readonly: ",
            Remark::Coarsened => "",
            Remark::NotCoarsened => "child not coarsened: ",
            Remark::DevrtStubKept | Remark::LeftToLink => "",
            Remark::StreamNotAggregated
            | Remark::NullStreamKept
            | Remark::ChildNotDefined
            | Remark::WarpWithTail
            | Remark::LoneLauncher
            | Remark::WarpLoopKept
            | Remark::IndexReadNotRemapped
            | Remark::ThreadEndWithoutReturn => {
                "launch not aggregated: "
            }
            _ => "launch left unchanged: ",
        }
    }

    pub fn emit(self, ctx: Ctx, at: InstructionValue, detail: &str) {
        ctx.remark(self.kind(), at, self.id(), &format!("{}{} [{}]", self.lead(), detail, self.id()));
    }
}
