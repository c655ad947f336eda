// PMPP chapter 21, "Quadtree with dynamic parallelism": build_quadtree_kernel sorts the points of its
// node into the four quadrants, and the last thread of the block launches the kernel itself again
// for the four children (4 blocks, the parent's block size, 8 ints of dynamic shared memory, a
// Parameters struct passed by value). With its support classes (Points, Bounding_box, Quadtree_node,
// Parameters) and device functions as the book's appendix gives them; prepare_children computes the
// bounding box's center itself, which the listing uses without defining.
// Facts from the source: one launch, of the kernel by itself (recursive), under
// `threadIdx.x == blockDim.x-1` (divergent), not in a loop, grid (4,1,1), block blockDim.x, 32 bytes
// of shared memory, NULL stream, arguments (Quadtree_node *, Points *, Parameters by value: five
// ints, 20 bytes) at offsets 0, 8, 16; the points array is the parent's own second parameter.
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAUNCH
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-graph>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GRAPH

// LAUNCH: klap-launch: caller=[[K:_Z21build_quadtree_kernelP13Quadtree_nodeP6Points10Parameters]] child=[[K]] abi=v1 grid=(4,1,1) block=({{%[0-9]+}},1,1) dims=byval smem=32 stream=null args=3 [0:ptr={{%[0-9]+}} 8:ptr=%1 16:byval(%struct.Parameters)={{.*}}] loop=0 divergent=yes{{$}}
// LAUNCH-NOT: klap-launch

// GRAPH: klap-graph: kernel=[[K:_Z21build_quadtree_kernelP13Quadtree_nodeP6Points10Parameters]] launches={{\[}}[[K]]] recursive{{$}}
// GRAPH-NEXT: klap-graph-recursion: {{\[}}[[K]]]{{$}}
// GRAPH-NOT: klap-graph

#include <cuda.h>

// A structure of 2D points
class Points {
  float *m_x;
  float *m_y;

 public:
  // Constructor
  __host__ __device__ Points() : m_x(NULL), m_y(NULL) {}

  // Constructor
  __host__ __device__ Points(float *x, float *y) : m_x(x), m_y(y) {}

  // Get a point
  __host__ __device__ __forceinline__ float2 get_point(int idx) const { return make_float2(m_x[idx], m_y[idx]); }

  // Set a point
  __host__ __device__ __forceinline__ void set_point(int idx, const float2 &p) {
    m_x[idx] = p.x;
    m_y[idx] = p.y;
  }

  // Set the pointers
  __host__ __device__ __forceinline__ void set(float *x, float *y) {
    m_x = x;
    m_y = y;
  }
};

// A 2D bounding box
class Bounding_box {
  // Extreme points of the bounding box
  float2 m_p_min;
  float2 m_p_max;

 public:
  // Constructor. Create a unit box
  __host__ __device__ Bounding_box() {
    m_p_min = make_float2(0.0f, 0.0f);
    m_p_max = make_float2(1.0f, 1.0f);
  }

  // Compute the center of the bounding-box
  __host__ __device__ void compute_center(float2 &center) const {
    center.x = 0.5f * (m_p_min.x + m_p_max.x);
    center.y = 0.5f * (m_p_min.y + m_p_max.y);
  }

  // The points of the box
  __host__ __device__ __forceinline__ const float2 &get_max() const { return m_p_max; }

  __host__ __device__ __forceinline__ const float2 &get_min() const { return m_p_min; }

  // Does a box contain a point
  __host__ __device__ bool contains(const float2 &p) const {
    return p.x >= m_p_min.x && p.x < m_p_max.x && p.y >= m_p_min.y && p.y < m_p_max.y;
  }

  // Define the bounding box
  __host__ __device__ void set(float min_x, float min_y, float max_x, float max_y) {
    m_p_min.x = min_x;
    m_p_min.y = min_y;
    m_p_max.x = max_x;
    m_p_max.y = max_y;
  }
};

// A node of a quadtree
class Quadtree_node {
  // The identifier of the node
  int m_id;
  // The bounding box of the tree
  Bounding_box m_bounding_box;
  // The range of points
  int m_begin, m_end;

 public:
  // Constructor
  __host__ __device__ Quadtree_node() : m_id(0), m_begin(0), m_end(0) {}

  // The ID of a node at its level
  __host__ __device__ int id() const { return m_id; }

  // The ID of a node at its level
  __host__ __device__ void set_id(int new_id) { m_id = new_id; }

  // The bounding box
  __host__ __device__ __forceinline__ const Bounding_box &bounding_box() const { return m_bounding_box; }

  // Set the bounding box
  __host__ __device__ __forceinline__ void set_bounding_box(float min_x, float min_y, float max_x, float max_y) {
    m_bounding_box.set(min_x, min_y, max_x, max_y);
  }

  // The number of points in the tree
  __host__ __device__ __forceinline__ int num_points() const { return m_end - m_begin; }

  // The range of points in the tree
  __host__ __device__ __forceinline__ int points_begin() const { return m_begin; }

  __host__ __device__ __forceinline__ int points_end() const { return m_end; }

  // Define the range for that node
  __host__ __device__ __forceinline__ void set_range(int begin, int end) {
    m_begin = begin;
    m_end = end;
  }
};

// Algorithm parameters
struct Parameters {
  // Choose the right set of points to use as in/out
  int point_selector;
  // The number of nodes at a given level (2^k for level k)
  int num_nodes_at_this_level;
  // The recursion depth
  int depth;
  // The max value for depth
  const int max_depth;
  // The minimum number of points in a node to stop recursion
  const int min_points_per_node;

  // Constructor set to default values.
  __host__ __device__ Parameters(int max_depth, int min_points_per_node)
      : point_selector(0),
        num_nodes_at_this_level(1),
        depth(0),
        max_depth(max_depth),
        min_points_per_node(min_points_per_node) {}

  // Copy constructor. Changes the values for next iteration
  __host__ __device__ Parameters(const Parameters &params, bool)
      : point_selector((params.point_selector + 1) % 2),
        num_nodes_at_this_level(4 * params.num_nodes_at_this_level),
        depth(params.depth + 1),
        max_depth(params.max_depth),
        min_points_per_node(params.min_points_per_node) {}
};

// Check the number of points and its depth
__device__ bool check_num_points_and_depth(Quadtree_node &node, Points *points, int num_points, Parameters params) {
  if (params.depth >= params.max_depth || num_points <= params.min_points_per_node) {
    // Stop the recursion here. Make sure points[0] contains all the points
    if (params.point_selector == 1) {
      int it = node.points_begin(), end = node.points_end();
      for (it += threadIdx.x; it < end; it += blockDim.x)
        if (it < end)
          points[0].set_point(it, points[1].get_point(it));
    }
    return true;
  }
  return false;
}

// Count the number of points in each quadrant
__device__ void count_points_in_children(const Points &in_points, int *smem, int range_begin, int range_end,
                                         float2 center) {
  // Initialize shared memory
  if (threadIdx.x < 4)
    smem[threadIdx.x] = 0;
  __syncthreads();
  // Compute the number of points
  for (int iter = range_begin + threadIdx.x; iter < range_end; iter += blockDim.x) {
    float2 p = in_points.get_point(iter);  // Load the coordinates of the point
    if (p.x < center.x && p.y >= center.y)
      atomicAdd(&smem[0], 1);  // Top-left point?
    if (p.x >= center.x && p.y >= center.y)
      atomicAdd(&smem[1], 1);  // Top-right point?
    if (p.x < center.x && p.y < center.y)
      atomicAdd(&smem[2], 1);  // Bottom-left point?
    if (p.x >= center.x && p.y < center.y)
      atomicAdd(&smem[3], 1);  // Bottom-right point?
  }
  __syncthreads();
}

// Scan quadrants' results to obtain reordering offset
__device__ void scan_for_offsets(int node_points_begin, int *smem) {
  int *smem2 = &smem[4];
  if (threadIdx.x == 0) {
    for (int i = 0; i < 4; i++)
      smem2[i] = i == 0 ? 0 : smem2[i - 1] + smem[i - 1];  // Sequential scan
    for (int i = 0; i < 4; i++)
      smem2[i] += node_points_begin;  // Global offset
  }
  __syncthreads();
}

// Reorder points in order to group the points in each quadrant
__device__ void reorder_points(Points &out_points, const Points &in_points, int *smem, int range_begin, int range_end,
                               float2 center) {
  int *smem2 = &smem[4];
  // Reorder points
  for (int iter = range_begin + threadIdx.x; iter < range_end; iter += blockDim.x) {
    int dest;
    float2 p = in_points.get_point(iter);  // Load the coordinates of the point
    if (p.x < center.x && p.y >= center.y)
      dest = atomicAdd(&smem2[0], 1);  // Top-left point?
    if (p.x >= center.x && p.y >= center.y)
      dest = atomicAdd(&smem2[1], 1);  // Top-right point?
    if (p.x < center.x && p.y < center.y)
      dest = atomicAdd(&smem2[2], 1);  // Bottom-left point?
    if (p.x >= center.x && p.y < center.y)
      dest = atomicAdd(&smem2[3], 1);  // Bottom-right point?
    // Move point
    out_points.set_point(dest, p);
  }
  __syncthreads();
}

// Prepare children launch
__device__ void prepare_children(Quadtree_node *children, Quadtree_node &node, const Bounding_box &bbox, int *smem) {
  int child_offset = 4 * node.id();  // The offsets of the children at their level

  // Set IDs
  children[child_offset + 0].set_id(4 * node.id() + 0);
  children[child_offset + 1].set_id(4 * node.id() + 4);
  children[child_offset + 2].set_id(4 * node.id() + 8);
  children[child_offset + 3].set_id(4 * node.id() + 12);

  // Points of the bounding-box
  const float2 &p_min = bbox.get_min();
  const float2 &p_max = bbox.get_max();
  float2 center;
  bbox.compute_center(center);

  // Set the bounding boxes of the children
  children[child_offset + 0].set_bounding_box(p_min.x, center.y, center.x, p_max.y);  // Top-left
  children[child_offset + 1].set_bounding_box(center.x, center.y, p_max.x, p_max.y);  // Top-right
  children[child_offset + 2].set_bounding_box(p_min.x, p_min.y, center.x, center.y);  // Bottom-left
  children[child_offset + 3].set_bounding_box(center.x, p_min.y, p_max.x, center.y);  // Bottom-right

  // Set the ranges of the children.
  children[child_offset + 0].set_range(node.points_begin(), smem[4 + 0]);
  children[child_offset + 1].set_range(smem[4 + 0], smem[4 + 1]);
  children[child_offset + 2].set_range(smem[4 + 1], smem[4 + 2]);
  children[child_offset + 3].set_range(smem[4 + 2], smem[4 + 3]);
}

__global__ void build_quadtree_kernel(Quadtree_node *nodes, Points *points, Parameters params) {
  __shared__ int smem[8];  // To store the number of points in each quadrant

  // The current node in the quadtree
  Quadtree_node &node = nodes[blockIdx.x];
  node.set_id(node.id() + blockIdx.x);
  int num_points = node.num_points();  // The number of points in the node

  // Check the number of points and its depth
  bool exit = check_num_points_and_depth(node, points, num_points, params);
  if (exit)
    return;

  // Compute the center of the bounding box of the points
  const Bounding_box &bbox = node.bounding_box();
  float2 center;
  bbox.compute_center(center);

  // Range of points
  int range_begin = node.points_begin();
  int range_end = node.points_end();
  const Points &in_points = points[params.point_selector];         // Input points
  Points &out_points = points[(params.point_selector + 1) % 2];    // Output points

  // Count the number of points in each child
  count_points_in_children(in_points, smem, range_begin, range_end, center);

  // Scan the quadrants' results to know the reordering offset
  scan_for_offsets(node.points_begin(), smem);

  // Move points
  reorder_points(out_points, in_points, smem, range_begin, range_end, center);

  // Launch new blocks
  if (threadIdx.x == blockDim.x - 1) {
    // The children
    Quadtree_node *children = &nodes[params.num_nodes_at_this_level];

    // Prepare children launch
    prepare_children(children, node, bbox, smem);

    // Launch 4 children.
    build_quadtree_kernel<<<4, blockDim.x, 8 * sizeof(int)>>>(children, points, Parameters(params, true));
  }
}
