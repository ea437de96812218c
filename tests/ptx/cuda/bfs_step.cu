// One BFS level on a CSR graph: every frontier vertex claims unvisited neighbours with
// atomicCAS (level -1 means unvisited) and marks them in the next frontier.
extern "C" __global__ void bfs_step(int nodes, int depth, const int *row_ptr, const int *cols, int *level, int *frontier, int *next) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes || !frontier[v]) return;
  for (int j = row_ptr[v]; j < row_ptr[v + 1]; j++) {
    int u = cols[j];
    if (atomicCAS(&level[u], -1, depth + 1) == -1) next[u] = 1;
  }
}
