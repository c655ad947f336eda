; What clang makes of a child that hashes a by-value struct through a read-only device function before its
; reductions, shuffles a value that is more than a linear form of the lane's own ((h >> 20) * 3 + 1, a leaf of
; its own whose halves the 64-bit tree shuffles), and counts its grid in lane 0 of global thread 0 (a
; condition on a call's result nested in the lane-0 test): all taken (KLAP321). The read-only call runs again
; in lane 0's part; the by-value argument's copy is each part's own.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK: launch of @_Z6shapesPy1Sj serialized with its warp reductions folded: {{.*}} [KLAP321]

; CHECK-LABEL: define internal void @_Z6shapesPy1Sj__klap_lane(
; CHECK:         call noundef i64 @_Z4hashRK1S(
; CHECK:         [[W:%.*]] = add nuw nsw i64 %{{.*}}, 1
; CHECK:         store i32 %{{.*}}, ptr
; CHECK:         store i64 [[W]], ptr
; CHECK-NEXT:    ret void
; CHECK-LABEL: define internal void @_Z6shapesPy1Sj__klap_lane0(
; CHECK-SAME:    i32 [[TOP:%[0-9]+]], i64 [[SUM:%[0-9]+]])
; CHECK-NOT:     @llvm.nvvm.shfl
; CHECK:         [[X:%.*]] = xor i64 [[SUM]], %{{.*}}
; CHECK:         atomicrmw add ptr %0, i64 [[X]] seq_cst
; CHECK:         atomicrmw add ptr %{{.*}}, i64 1 seq_cst

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.S = type { i32, i32, i32 }
%struct.dim3 = type { i32, i32, i32 }

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none)
define dso_local noundef range(i64 0, 2199023254528) i64 @_Z4gtidv() local_unnamed_addr #0 {
  %1 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %2 = zext nneg i32 %1 to i64
  %3 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %4 = zext nneg i32 %3 to i64
  %5 = mul nuw nsw i64 %2, %4
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %7 = zext nneg i32 %6 to i64
  %8 = add nuw nsw i64 %5, %7
  ret i64 %8
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: read)
define dso_local noundef i64 @_Z4hashRK1S(ptr noundef nonnull readonly align 4 captures(none) dereferenceable(12) %0) local_unnamed_addr #1 {
  %2 = load i32, ptr %0, align 4, !tbaa !11
  %3 = zext i32 %2 to i64
  %4 = mul i64 %3, -7046029254386353131
  %5 = getelementptr inbounds nuw i8, ptr %0, i64 4
  %6 = load i32, ptr %5, align 4, !tbaa !13
  %7 = zext i32 %6 to i64
  %8 = xor i64 %4, %7
  %9 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %10 = load i32, ptr %9, align 4, !tbaa !14
  %11 = zext i32 %10 to i64
  %12 = shl nuw nsw i64 %11, 7
  %13 = xor i64 %8, %12
  ret i64 %13
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite)
define dso_local ptx_kernel void @_Z6shapesPy1Sj(ptr noundef captures(none) %0, ptr noundef nonnull readonly byval(%struct.S) align 4 captures(none) %1, i32 noundef %2) #2 {
  %4 = tail call noundef i64 @_Z4gtidv() #9
  %5 = call noundef i64 @_Z4hashRK1S(ptr noundef nonnull align 4 dereferenceable(12) %1) #9
  %6 = zext i32 %2 to i64
  %7 = mul i64 %4, %6
  %8 = xor i64 %5, %7
  %9 = trunc i64 %8 to i32
  %10 = lshr i32 %9, 7
  %11 = tail call noundef i32 @llvm.nvvm.redux.sync.umax(i32 %10, i32 -1)
  %12 = lshr i64 %8, 20
  %13 = mul nuw nsw i64 %12, 3
  %14 = add nuw nsw i64 %13, 1
  %15 = trunc i64 %14 to i32
  %16 = lshr i64 %14, 32
  %17 = trunc nuw nsw i64 %16 to i32
  %18 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %15, i32 16, i32 31)
  %19 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %17, i32 16, i32 31)
  %20 = zext i32 %19 to i64
  %21 = shl nuw i64 %20, 32
  %22 = zext i32 %18 to i64
  %23 = add nuw nsw i64 %14, %22
  %24 = add i64 %23, %21
  %25 = trunc i64 %23 to i32
  %26 = lshr i64 %24, 32
  %27 = trunc nuw i64 %26 to i32
  %28 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %25, i32 8, i32 31)
  %29 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %27, i32 8, i32 31)
  %30 = zext i32 %29 to i64
  %31 = shl nuw i64 %30, 32
  %32 = zext i32 %28 to i64
  %33 = add i64 %24, %32
  %34 = add i64 %33, %31
  %35 = trunc i64 %33 to i32
  %36 = lshr i64 %34, 32
  %37 = trunc nuw i64 %36 to i32
  %38 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %35, i32 4, i32 31)
  %39 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %37, i32 4, i32 31)
  %40 = zext i32 %39 to i64
  %41 = shl nuw i64 %40, 32
  %42 = zext i32 %38 to i64
  %43 = add i64 %34, %42
  %44 = add i64 %43, %41
  %45 = trunc i64 %43 to i32
  %46 = lshr i64 %44, 32
  %47 = trunc nuw i64 %46 to i32
  %48 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %45, i32 2, i32 31)
  %49 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %47, i32 2, i32 31)
  %50 = zext i32 %49 to i64
  %51 = shl nuw i64 %50, 32
  %52 = zext i32 %48 to i64
  %53 = add i64 %44, %52
  %54 = add i64 %53, %51
  %55 = trunc i64 %53 to i32
  %56 = lshr i64 %54, 32
  %57 = trunc nuw i64 %56 to i32
  %58 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %55, i32 1, i32 31)
  %59 = tail call noundef i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %57, i32 1, i32 31)
  %60 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %61 = and i32 %60, 31
  %62 = icmp eq i32 %61, 0
  br i1 %62, label %63, label %76

63:                                               ; preds = %3
  %64 = zext i32 %58 to i64
  %65 = add i64 %54, %64
  %66 = zext i32 %59 to i64
  %67 = shl nuw i64 %66, 32
  %68 = add i64 %65, %67
  %69 = zext i32 %11 to i64
  %70 = xor i64 %68, %69
  %71 = atomicrmw add ptr %0, i64 %70 seq_cst, align 8
  %72 = icmp eq i64 %4, 0
  br i1 %72, label %73, label %76

73:                                               ; preds = %63
  %74 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %75 = atomicrmw add ptr %74, i64 1 seq_cst, align 8
  br label %76

76:                                               ; preds = %63, %73, %3
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #3

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @_Z6parentPy1S(ptr noundef %0, ptr noundef readonly byval(%struct.S) align 4 captures(none) %1) local_unnamed_addr #4 {
  %3 = alloca %struct.dim3, align 8
  %4 = alloca %struct.dim3, align 8
  %5 = tail call noundef ptr @__cudaCDP2GetParameterBuffer(i64 noundef 64, i64 noundef 24) #10
  %6 = icmp eq ptr %5, null
  br i1 %6, label %16, label %7

7:                                                ; preds = %2
  %8 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store ptr %0, ptr %5, align 64, !tbaa !15
  %9 = getelementptr inbounds nuw i8, ptr %5, i64 8
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(12) %9, ptr noundef nonnull align 4 dereferenceable(12) %1, i64 12, i1 false)
  %10 = getelementptr inbounds nuw i8, ptr %5, i64 20
  store i32 %8, ptr %10, align 4, !tbaa !6
  call void @llvm.lifetime.start.p0(ptr nonnull %4)
  call void @llvm.lifetime.start.p0(ptr nonnull %3)
  store i32 64, ptr %3, align 8
  %11 = getelementptr inbounds nuw i8, ptr %3, i64 4
  store i32 1, ptr %11, align 4
  %12 = getelementptr inbounds nuw i8, ptr %3, i64 8
  store i32 1, ptr %12, align 8
  store i32 2, ptr %4, align 8
  %13 = getelementptr inbounds nuw i8, ptr %4, i64 4
  store i32 1, ptr %13, align 4
  %14 = getelementptr inbounds nuw i8, ptr %4, i64 8
  store i32 1, ptr %14, align 8
  %15 = tail call noundef i32 @__cudaCDP2LaunchDevice(ptr noundef nonnull @_Z6shapesPy1Sj, ptr noundef nonnull %5, ptr noundef nonnull byval(%struct.dim3) align 4 %4, ptr noundef nonnull byval(%struct.dim3) align 4 %3, i32 noundef 0, ptr noundef null) #10
  call void @llvm.lifetime.end.p0(ptr nonnull %4)
  call void @llvm.lifetime.end.p0(ptr nonnull %3)
  br label %16

16:                                               ; preds = %7, %2
  ret void
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #5

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #6

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #6

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #6

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.redux.sync.umax(i32, i32) #7

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32) #7

; Function Attrs: convergent nounwind
declare dso_local ptr @__cudaCDP2GetParameterBuffer(i64 noundef, i64 noundef) local_unnamed_addr #8

; Function Attrs: convergent nounwind
declare dso_local i32 @__cudaCDP2LaunchDevice(ptr noundef, ptr noundef, ptr noundef byval(%struct.dim3) align 4, ptr noundef byval(%struct.dim3) align 4, i32 noundef, ptr noundef) local_unnamed_addr #8

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" }
attributes #1 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: read) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" }
attributes #2 = { convergent mustprogress noinline norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" "uniform-work-group-size"="true" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #4 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" "uniform-work-group-size"="true" }
attributes #5 = { mustprogress nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #6 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #7 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #8 = { convergent nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" }
attributes #9 = { nounwind }
attributes #10 = { convergent nounwind }

!llvm.errno.tbaa = !{!6}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 9]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!5 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!6 = !{!7, !7, i64 0}
!7 = !{!"int", !8, i64 0}
!8 = !{!"omnipotent char", !9, i64 0}
!9 = !{!"Simple C++ TBAA"}
!10 = !{i32 2, i32 0}
!11 = !{!12, !7, i64 0}
!12 = !{!"_ZTS1S", !7, i64 0, !7, i64 4, !7, i64 8}
!13 = !{!12, !7, i64 4}
!14 = !{!12, !7, i64 8}
!15 = !{!16, !16, i64 0}
!16 = !{!"p1 long long", !17, i64 0}
!17 = !{!"any pointer", !8, i64 0}
