//! The device-launch ABI: which runtime entry points make a launch, and the stream handles.
//! Facts in ../shared/notes/device-launch-abi.md.

/// The two launch protocols of the CUDA device runtime.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Abi {
    /// `cudaGetParameterBuffer(align, size)` + `cudaLaunchDevice(kernel, buf, grid, block, smem, stream)`:
    /// what clang 22 emits for `<<<>>>` in device code.
    V1,
    /// `cudaGetParameterBufferV2(kernel, grid, block, smem)` + `cudaLaunchDeviceV2(buf, stream)`:
    /// what nvcc and NVVM producers emit.
    V2,
}

impl Abi {
    pub fn as_str(self) -> &'static str {
        match self {
            Abi::V1 => "v1",
            Abi::V2 => "v2",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EntryKind {
    ParameterBuffer,
    Launch,
}

/// One device-runtime entry point, decoded from its symbol name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Entry {
    pub kind: EntryKind,
    pub abi: Abi,
    /// Named with CUDA 12+'s `__cudaCDP2` prefix.
    pub cdp2_prefix: bool,
    /// The per-thread-default-stream (`_ptsz`) variant.
    pub ptsz: bool,
}

/// Decodes `[__cudaCDP2]{cudaGetParameterBuffer,cudaLaunchDevice}[V2][_ptsz]`, also as the mangled
/// name of the CUDA headers' static wrappers that -O0 code calls (`_ZL16cudaLaunchDevicePvS_...`).
pub fn classify_entry(name: &str) -> Option<Entry> {
    let name = unmangle_static_function(name).unwrap_or(name);
    let (cdp2_prefix, rest) = match name.strip_prefix("__cudaCDP2") {
        Some(r) => (true, r),
        None => (false, name.strip_prefix("cuda")?),
    };
    let (ptsz, rest) = match rest.strip_suffix("_ptsz") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (abi, rest) = match rest.strip_suffix("V2") {
        Some(r) => (Abi::V2, r),
        None => (Abi::V1, rest),
    };
    let kind = match rest {
        "GetParameterBuffer" => EntryKind::ParameterBuffer,
        "LaunchDevice" => EntryKind::Launch,
        _ => return None,
    };
    Some(Entry { kind, abi, cdp2_prefix, ptsz })
}

/// Declarations CUDA provides at the device link: LLVM's intrinsics, CUDA's device runtime (libcudadevrt)
/// and the system calls of CUDA's headers. A capped kernel may call them (nvlink links them as they are,
/// transform/registers.rs), and none of them waits at a barrier of the block (promote/looped.rs).
pub fn cuda_provided(name: &str) -> bool {
    ["llvm.", "cuda", "__cuda"].iter().any(|p| name.starts_with(p)) || ["vprintf", "malloc", "free", "__assertfail"].contains(&name)
}

/// Whether a function of this name is the launch protocol's (`classify_entry`) or a query of the device
/// runtime's last error: the device-runtime calls klap itself makes or folds.
pub fn launch_or_error_query(name: &str) -> bool {
    classify_entry(name).is_some() || name.ends_with("GetLastError") || name.ends_with("PeekAtLastError")
}

/// The identifier of a mangled file-static function: `_ZL22cudaGetParameterBuffermm` -> its 22 characters.
pub(crate) fn unmangle_static_function(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_ZL")?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

/// The symbol CUDA 13's libcudadevrt defines for an entry point: normalized code always uses these.
pub fn cdp2_symbol(kind: EntryKind, abi: Abi, ptsz: bool) -> String {
    let base = match kind {
        EntryKind::ParameterBuffer => "GetParameterBuffer",
        EntryKind::Launch => "LaunchDevice",
    };
    let v2 = if abi == Abi::V2 { "V2" } else { "" };
    // The parameter buffer has no per-thread-stream variant.
    let ptsz = if ptsz && kind == EntryKind::Launch { "_ptsz" } else { "" };
    format!("__cudaCDP2{base}{v2}{ptsz}")
}

/// A launch's stream, as far as it is known at compile time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stream {
    /// NULL: launches of one thread block run in order.
    Null,
    /// `cudaStreamTailLaunch`: runs after the whole launching grid and its other work.
    Tail,
    /// `cudaStreamFireAndForget`: runs at once, unordered.
    FireAndForget,
    /// `cudaStreamPerThread`.
    PerThread,
    /// A stream this thread created for this launch alone: `cudaStreamCreateWithFlags(&s,
    /// cudaStreamNonBlocking)` before it, this launch its only use, `cudaStreamDestroy(s)` after it. It
    /// orders the launch after nothing (a non-blocking stream does not wait for the NULL stream), as
    /// fire-and-forget does.
    SingleLaunch,
    /// Any other (created) stream, or one only known at run time.
    Other,
}

pub const STREAM_PER_THREAD: u64 = 0x2;
pub const STREAM_TAIL_LAUNCH: u64 = 0x3;
pub const STREAM_FIRE_AND_FORGET: u64 = 0x4;

impl Stream {
    pub fn from_handle(constant: Option<u64>) -> Stream {
        match constant {
            Some(0) => Stream::Null,
            Some(STREAM_PER_THREAD) => Stream::PerThread,
            Some(STREAM_TAIL_LAUNCH) => Stream::Tail,
            Some(STREAM_FIRE_AND_FORGET) => Stream::FireAndForget,
            _ => Stream::Other,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Null => "null",
            Stream::Tail => "tail",
            Stream::FireAndForget => "fire-and-forget",
            Stream::PerThread => "per-thread",
            Stream::SingleLaunch => "single-launch",
            Stream::Other => "other",
        }
    }
}

/// What the remarks of a launch into a [`Stream::SingleLaunch`] stream say of it.
pub const SINGLE_LAUNCH_STREAM: &str = "its stream was created for this launch alone (cudaStreamCreateWithFlags(&s, \
     cudaStreamNonBlocking), the launch, cudaStreamDestroy(s)), which orders it after nothing, like fire-and-forget";

/// `cudaStreamNonBlocking`, the flag a device-side stream must be created with.
pub const STREAM_NON_BLOCKING: u64 = 0x1;

/// The device runtime's stream calls that the single-launch stream idiom is made of.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StreamCall {
    /// `cudaStreamCreateWithFlags(cudaStream_t *, unsigned flags)`.
    CreateWithFlags,
    /// `cudaStreamDestroy(cudaStream_t)`.
    Destroy,
}

/// The device runtime's API name (`cudaX`) of a call to `__cudaCDP2X`, to `cudaX`, or to the CUDA headers'
/// static wrapper of `cudaX` that -O0 code calls.
fn runtime_api_name(name: &str) -> String {
    let name = unmangle_static_function(name).unwrap_or(name);
    name.strip_prefix("__cudaCDP2").map(|r| format!("cuda{r}")).unwrap_or_else(|| name.to_string())
}

/// Decodes `[__cudaCDP2]cudaStreamCreateWithFlags` / `cudaStreamDestroy`.
pub fn classify_stream_call(name: &str) -> Option<StreamCall> {
    match runtime_api_name(name).as_str() {
        "cudaStreamCreateWithFlags" => Some(StreamCall::CreateWithFlags),
        "cudaStreamDestroy" => Some(StreamCall::Destroy),
        _ => None,
    }
}

/// Whether a call makes or frees one of the device runtime's streams or events: calls serialization keeps
/// away from (KLAP323).
pub fn makes_or_frees_runtime_object(name: &str) -> bool {
    classify_stream_call(name).is_some() || matches!(runtime_api_name(name).as_str(), "cudaEventCreateWithFlags" | "cudaEventDestroy")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names() {
        let e = classify_entry("__cudaCDP2LaunchDeviceV2_ptsz").unwrap();
        assert_eq!((e.kind, e.abi, e.cdp2_prefix, e.ptsz), (EntryKind::Launch, Abi::V2, true, true));
        let e = classify_entry("cudaGetParameterBuffer").unwrap();
        assert_eq!((e.kind, e.abi, e.cdp2_prefix, e.ptsz), (EntryKind::ParameterBuffer, Abi::V1, false, false));
        assert!(classify_entry("cudaMalloc").is_none());
        let e = classify_entry("_ZL16cudaLaunchDevicePvS_4dim3S0_jP11CUstream_st").unwrap();
        assert_eq!((e.kind, e.abi, e.cdp2_prefix), (EntryKind::Launch, Abi::V1, false));
        assert!(classify_entry("_ZL99cuda").is_none());
        assert!(classify_entry("__cudaCDP2Malloc").is_none());
        assert_eq!(cdp2_symbol(EntryKind::ParameterBuffer, Abi::V2, true), "__cudaCDP2GetParameterBufferV2");
        assert_eq!(cdp2_symbol(EntryKind::Launch, Abi::V2, true), "__cudaCDP2LaunchDeviceV2_ptsz");
    }

    #[test]
    fn stream_calls() {
        assert_eq!(classify_stream_call("__cudaCDP2StreamCreateWithFlags"), Some(StreamCall::CreateWithFlags));
        assert_eq!(classify_stream_call("cudaStreamDestroy"), Some(StreamCall::Destroy));
        assert_eq!(classify_stream_call("_ZL25cudaStreamCreateWithFlagsPP11CUstream_stj"), Some(StreamCall::CreateWithFlags));
        assert_eq!(classify_stream_call("__cudaCDP2StreamCreateWithPriority"), None);
        assert_eq!(classify_stream_call("cudaStreamCreate"), None);
        assert!(makes_or_frees_runtime_object("__cudaCDP2EventCreateWithFlags"));
        assert!(makes_or_frees_runtime_object("_ZL16cudaEventDestroyP10CUevent_st"));
        assert!(makes_or_frees_runtime_object("__cudaCDP2StreamDestroy"));
        assert!(!makes_or_frees_runtime_object("__cudaCDP2EventRecord"));
        assert!(!makes_or_frees_runtime_object("__cudaCDP2Malloc"));
    }

    #[test]
    fn stream_handles() {
        assert_eq!(Stream::from_handle(Some(4)), Stream::FireAndForget);
        assert_eq!(Stream::from_handle(Some(3)), Stream::Tail);
        assert_eq!(Stream::from_handle(None), Stream::Other);
    }
}
