; Children with warp collectives that one thread cannot run with their reductions folded (KLAP321): each
; stays with the launching warp (KLAP308), whose remark says why not.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: FileCheck %s < %t.ll

; REMARK-DAG: launch of @write_first run by the launching warp: {{.*}}; not run by the launching thread with its warp reductions folded: it writes memory or synchronizes before its warp reductions are done (store i32 %v, ptr %p, align 4) [KLAP308]
; REMARK-DAG: launch of @all_write run by the launching warp: {{.*}}; not run by the launching thread with its warp reductions folded: it writes memory or synchronizes after its warp reductions where the lane may be other than 0 (store i32 %s, ptr %p, align 4) [KLAP308]
; REMARK-DAG: launch of @half_tree run by the launching warp: {{.*}}; not run by the launching thread with its warp reductions folded: lane 0's %s8 does not count every lane's value the same [KLAP308]
; REMARK-DAG: launch of @partial_mask run by the launching warp: {{.*}}; not run by the launching thread with its warp reductions folded: its llvm.nvvm.redux.sync.add is not over the whole warp (a mask other than a constant 0xffffffff) [KLAP308]
; REMARK-DAG: launch of @float_shuffle run by the launching warp: {{.*}}; not run by the launching thread with its warp reductions folded: it calls llvm.nvvm.shfl.sync.down.f32, which is not a whole-warp reduction or integer shuffle [KLAP308]
; REMARK-DAG: launch of @good run by the launching warp: {{.*}}; not run by the launching thread with its warp reductions folded: its blocks may not make threadIdx.x % 32 the lane (not constant one-dimensional blocks, nor a constant multiple of 32 wide) [KLAP308]
; REMARK-DAG: launch of @lane_use run by the launching warp: {{.*}}; not run by the launching thread with its warp reductions folded: %w = select i1 %big, i32 %s1, i32 0 uses a shuffle's result where the lane may be other than 0 [KLAP308]
; REMARK-DAG: launch of @good serialized with its warp reductions folded: {{.*}} [KLAP321]

; CHECK-NOT: __klap_reduced_serial(ptr %out, i32 1, i32 1, i32 1, i32 16
; CHECK: call void @good__klap_reduced_serial(ptr %out, i32 1, i32 1, i32 1, i32 64, i32 1, i32 1, i64 -1)

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)

define ptx_kernel void @write_first(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = mul i32 %t, 3
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %w, label %e
w:
  store i32 %s, ptr %out, align 4
  br label %e
e:
  ret void
}

define ptx_kernel void @all_write(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %t, i32 -1)
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %s, ptr %p, align 4
  ret void
}

define ptx_kernel void @half_tree(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %h16 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %t, i32 16, i32 31)
  %s16 = add i32 %t, %h16
  %h8 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s16, i32 8, i32 31)
  %s8 = add i32 %s16, %h8
  %z = icmp eq i32 %t, 0
  br i1 %z, label %w, label %e
w:
  store i32 %s8, ptr %out, align 4
  br label %e
e:
  ret void
}

define ptx_kernel void @partial_mask(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %t, i32 65535)
  %z = icmp eq i32 %t, 0
  br i1 %z, label %w, label %e
w:
  store i32 %s, ptr %out, align 4
  br label %e
e:
  ret void
}

define ptx_kernel void @float_shuffle(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %f = uitofp i32 %t to float
  %h = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %f, i32 16, i32 31)
  %s = fadd float %f, %h
  %z = icmp eq i32 %t, 0
  br i1 %z, label %w, label %e
w:
  store float %s, ptr %out, align 4
  br label %e
e:
  ret void
}

; A whole-warp sum, written by lane 0: runs folded from a one-dimensional block, not from a 16 x 2 one.
define ptx_kernel void @good(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %t, i32 -1)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %w, label %e
w:
  %r = atomicrmw add ptr %out, i32 %s monotonic, align 4
  br label %e
e:
  ret void
}

define ptx_kernel void @lane_use(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %h = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %t, i32 1, i32 31)
  %s1 = add i32 %t, %h
  %big = icmp ugt i32 %t, 3
  %w = select i1 %big, i32 %s1, i32 0
  %z = icmp eq i32 %t, 0
  br i1 %z, label %st, label %e
st:
  store i32 %w, ptr %out, align 4
  br label %e
e:
  ret void
}

define ptx_kernel void @p_write_first(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @write_first, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @p_all_write(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @all_write, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @p_half_tree(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @half_tree, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @p_partial_mask(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @partial_mask, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @p_float_shuffle(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @float_shuffle, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @p_lane_use(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @lane_use, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @p_good(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @good, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @p_good_2d(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 16, i32 2, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @good, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
