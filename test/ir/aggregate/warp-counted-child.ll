; At grid granularity a launch in a device function that no kernel's scope takes is aggregated at warp
; granularity (KLAP204): here @top, which runs it, may end a thread without returning, so it has no
; scope to share (KLAP214 does not apply). When its child's aggregated variant has a grid scope of its
; own (here @mid__klap, which launches @leaf), that scope waits for the child threads its chunks count, so the warp chunk must count them too: the
; record size given to __klap_warp_chunk carries bit 31 (12 | 1 << 31), as a scope's group for @mid
; does. Without it the scope in @mid__klap never completed and every launch of @leaf was lost (found
; by the fuzzer: cases 203-17, 208-14, 216-5, 219-8, 219-18 and 221-34 lost their grandchildren).
; The launch of @leaf from the device function is not counted (@leaf launches nothing), and the size
; given to __klap_launch_chunk is the bare parameter size.
; The runtime's __klap_warp_chunk takes the bit off the record size and hands it to the chunk as its
; count_threads flag (the RUNTIME lines: the size without bit 31, and bit 31 shifted down).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=RUNTIME %s < %t.ll

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.exit()

; CHECK-LABEL: define void @helper(
; CHECK:         [[MID:%.*]] = call ptr @__klap_warp_chunk(i32 -2147483636)
; CHECK:         call void @__klap_launch_chunk(ptr [[MID]], ptr @mid__klap, ptr @mid, i32 12,
; CHECK:         [[LEAF:%.*]] = call ptr @__klap_warp_chunk(i32 12)
; CHECK:         call void @__klap_launch_chunk(ptr [[LEAF]], ptr @leaf__klap, ptr @leaf, i32 12,
; CHECK:         ret void
define void @helper(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %second
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %second
second:
  %g2 = alloca %struct.dim3, align 4
  %b2 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g2, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b2, align 4
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b2, i32 0)
  %ok2 = icmp ne ptr %buf2, null
  br i1 %ok2, label %fill2, label %done
fill2:
  store ptr %out, ptr %buf2, align 8
  %a2 = getelementptr inbounds i8, ptr %buf2, i64 8
  store i32 %n, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @top(
; CHECK:         call void @helper(
define ptx_kernel void @top(ptr %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @helper(ptr %out, i32 %t)
  %quit = icmp ugt i32 %t, 1000
  br i1 %quit, label %stop, label %done
stop:
  call void @llvm.nvvm.exit()
  unreachable
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @mid__klap(ptr %klap.chunk)
; CHECK:         call ptr @__klap_child_grid_scope()
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @leaf__klap, ptr @leaf,
define ptx_kernel void @mid(ptr %out, i32 %base) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add i32 %base, %t
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @leaf(ptr %out, i32 %i) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %j = add i32 %i, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %j
  store i32 1, ptr %p, align 4
  ret void
}

; RUNTIME-LABEL: define internal ptr @__klap_warp_chunk(
; RUNTIME-SAME:    i32 noundef [[SIZE:%[0-9]+]])
; RUNTIME-DAG:     and i32 [[SIZE]], 2147483647
; RUNTIME-DAG:     lshr i32 [[SIZE]], 31
; RUNTIME:       {{^}}}
