// PMPP chapter 21, "Bezier calculation with dynamic parallelism": one parent thread per line computes
// how many vertices the line needs from its curvature, allocates their buffer with device-side
// cudaMalloc, and launches computeBezierLine_child with one child thread per vertex in blocks of 32.
// The listing's computeCurvature is not given in the book: here it is the distance of the middle
// control point from the chord's midpoint relative to the chord's length. The float2 operators the
// listing uses are defined here too.
// Facts from the source: the launch is under `if (lidx < nLines)` with lidx from threadIdx.x
// (divergent), not in a loop, block 32 and a grid computed at run time, NULL stream, and the child's
// three parameters (int, BezierLine *, int) at offsets 0, 8, 16; the line array is the parent's
// first parameter. freeVertexMem launches nothing.
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAUNCH
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-graph>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GRAPH

// LAUNCH: klap-launch: caller=_Z25computeBezierLines_parentP10BezierLinei child=_Z23computeBezierLine_childiP10BezierLinei abi=v1 grid=({{%[0-9]+}},1,1) block=(32,1,1) dims=byval smem=0 stream=null args=3 [0:i32={{%[0-9]+}} 8:ptr=%0 16:i32={{%[0-9]+}}] loop=0 divergent=yes{{$}}
// LAUNCH-NOT: klap-launch

// GRAPH: klap-graph: kernel=_Z25computeBezierLines_parentP10BezierLinei launches=[_Z23computeBezierLine_childiP10BezierLinei]{{$}}
// GRAPH-NEXT: klap-graph: kernel=_Z23computeBezierLine_childiP10BezierLinei launches=[]{{$}}
// GRAPH-NEXT: klap-graph: kernel=_Z13freeVertexMemP10BezierLinei launches=[]{{$}}
// GRAPH-NOT: recursi

#include <stdio.h>
#include <cuda.h>

#define MAX_TESS_POINTS 32

__device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ float2 operator*(float s, float2 a) { return make_float2(s * a.x, s * a.y); }
__device__ float length(float2 a) { return sqrtf(a.x * a.x + a.y * a.y); }

// A structure containing all parameters needed to tessellate a Bezier line
struct BezierLine {
  float2 CP[3];       // Control points for the line
  float2 *vertexPos;  // Vertex position array to tessellate into
  int nVertices;
};

__device__ float computeCurvature(BezierLine *bLines, int lidx) {
  const BezierLine &line = bLines[lidx];
  float2 chordMid = 0.5f * (line.CP[0] + line.CP[2]);
  float chord = length(line.CP[2] - line.CP[0]);
  return chord > 0.0f ? length(line.CP[1] - chordMid) / chord : 0.0f;
}

__global__ void computeBezierLine_child(int lidx, BezierLine *bLines, int nTessPoints);

__global__ void computeBezierLines_parent(BezierLine *bLines, int nLines) {
  // Compute a unique index for each Bezier line
  int lidx = threadIdx.x + blockDim.x * blockIdx.x;
  if (lidx < nLines) {
    // Compute the curvature of the line
    float curvature = computeCurvature(bLines, lidx);

    // From the curvature, compute the number of tessellation points
    bLines[lidx].nVertices = min(max((int)(curvature * 16.0f), 4), MAX_TESS_POINTS);
    cudaMalloc((void **)&bLines[lidx].vertexPos, bLines[lidx].nVertices * sizeof(float2));

    // Call the child kernel to compute the tessellated points for each line
    computeBezierLine_child<<<ceil((float)bLines[lidx].nVertices / 32.0f), 32>>>(lidx, bLines, bLines[lidx].nVertices);
  }
}

__global__ void computeBezierLine_child(int lidx, BezierLine *bLines, int nTessPoints) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;  // Compute idx unique to this vertex
  if (idx < nTessPoints) {
    float u = (float)idx / (float)(nTessPoints - 1);  // Compute u from idx
    float omu = 1.0f - u;                             // Pre-compute one minus u
    float B3u[3];                                     // Compute quadratic Bezier coefficients
    B3u[0] = omu * omu;
    B3u[1] = 2.0f * u * omu;
    B3u[2] = u * u;
    float2 position = {0, 0};  // Set position to zero
    for (int i = 0; i < 3; i++) {
      // Add the contribution of the i'th control point to position
      position = position + B3u[i] * bLines[lidx].CP[i];
    }
    // Assign the value of the vertex position to the correct array element
    bLines[lidx].vertexPos[idx] = position;
  }
}

__global__ void freeVertexMem(BezierLine *bLines, int nLines) {
  // Compute a unique index for each Bezier line
  int lidx = threadIdx.x + blockDim.x * blockIdx.x;
  if (lidx < nLines)
    cudaFree(bLines[lidx].vertexPos);  // Free the vertex memory for this line
}
