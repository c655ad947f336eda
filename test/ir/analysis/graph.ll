; The launch graph (print<klap-graph>): one line per kernel in module order with the kernels it
; launches, flagged recursive when it is on a cycle, then one klap-graph-recursion line per set of
; kernels that launch each other. A kernel launching itself, two kernels launching each other, a
; kernel relaunching itself from a device function it calls, and a plain parent -> child pair (neither
; recursive) must come out as such.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-graph>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

; CHECK: klap-graph: kernel=selfrec launches=[selfrec] recursive{{$}}
define ptx_kernel void @selfrec(i32 %depth) {
entry:
  %deeper = icmp ult i32 %depth, 8
  br i1 %deeper, label %launch, label %done

launch:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @selfrec, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  %next = add i32 %depth, 1
  store i32 %next, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done

done:
  ret void
}

; CHECK-NEXT: klap-graph: kernel=ping launches=[pong] recursive{{$}}
define ptx_kernel void @ping(i32 %depth) {
entry:
  %deeper = icmp ult i32 %depth, 8
  br i1 %deeper, label %launch, label %done

launch:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @pong, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  %next = add i32 %depth, 1
  store i32 %next, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done

done:
  ret void
}

; CHECK-NEXT: klap-graph: kernel=pong launches=[ping] recursive{{$}}
define ptx_kernel void @pong(i32 %depth) {
entry:
  %deeper = icmp ult i32 %depth, 8
  br i1 %deeper, label %launch, label %done

launch:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @ping, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  %next = add i32 %depth, 1
  store i32 %next, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done

done:
  ret void
}

; CHECK-NEXT: klap-graph: kernel=parent launches=[child]{{$}}
define ptx_kernel void @parent(i32 %depth) {
entry:
  %deeper = icmp ult i32 %depth, 8
  br i1 %deeper, label %launch, label %done

launch:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  %next = add i32 %depth, 1
  store i32 %next, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done

done:
  ret void
}

; CHECK-NEXT: klap-graph: kernel=child launches=[]{{$}}
define ptx_kernel void @child(i32 %depth) {
  ret void
}

; CHECK-NEXT: klap-graph: kernel=viadev launches=[viadev] recursive{{$}}
; CHECK-NEXT: klap-graph-recursion: [ping,pong]{{$}}
; CHECK-NEXT: klap-graph-recursion: [selfrec]{{$}}
; CHECK-NEXT: klap-graph-recursion: [viadev]{{$}}
; CHECK-NOT: klap-graph
define ptx_kernel void @viadev(i32 %depth) {
  call void @relaunch(i32 %depth)
  ret void
}

define void @relaunch(i32 %depth) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @viadev, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  %next = add i32 %depth, 1
  store i32 %next, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
