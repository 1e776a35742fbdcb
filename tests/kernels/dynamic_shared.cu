// Dynamically sized shared memory holding a transposed tile of mixed-width data (bytes,
// shorts, doubles) with vector loads and stores.
extern "C" __global__ void dynamic_shared(const uchar4* __restrict__ in, const double2* __restrict__ d,
                                          short* __restrict__ out, double* __restrict__ dout, int n)
{
    extern __shared__ unsigned char smem[];
    short* s16 = (short*)smem;
    double* s64 = (double*)(smem + 2 * 4 * blockDim.x);
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    uchar4 v = i < n ? in[i] : make_uchar4(0, 0, 0, 0);
    double2 w = i < n ? d[i] : make_double2(0.0, 0.0);
    s16[4 * t + 0] = (short)v.x - (short)v.w;
    s16[4 * t + 1] = (short)(signed char)v.y;
    s16[4 * t + 2] = (short)v.z * 3;
    s16[4 * t + 3] = (short)t;
    s64[t] = w.x * w.y;
    __syncthreads();
    int r = blockDim.x - 1 - t;
    if (i < n) {
        out[i] = s16[4 * r + (t & 3)];
        dout[i] = s64[r] + s64[(r + 1) % blockDim.x];
    }
}
