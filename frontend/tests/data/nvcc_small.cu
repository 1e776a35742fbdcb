struct P { float x, y; };
__device__ __noinline__ float len2(P p) { return p.x * p.x + p.y * p.y; }
extern "C" __global__ void dbg(float* out, const P* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += len2(in[(i + k) % n]);
  out[i] = acc;
}
