// C = A * B in double precision for n x n matrices (n <= 64): one thread per element,
// 16x16 shared-memory tiles.
#define T 16
extern "C" __global__ void dgemm_small(const double *a, const double *b, double *c, int n)
{
    __shared__ double sa[T][T], sb[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    double acc = 0.0;
    for (int k0 = 0; k0 < n; k0 += T) {
        sa[threadIdx.y][threadIdx.x] = (row < n && k0 + threadIdx.x < n) ? a[row * n + k0 + threadIdx.x] : 0.0;
        sb[threadIdx.y][threadIdx.x] = (col < n && k0 + threadIdx.y < n) ? b[(k0 + threadIdx.y) * n + col] : 0.0;
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += sa[threadIdx.y][k] * sb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = acc;
}
