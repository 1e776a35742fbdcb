// Many simultaneously live values (a 16-tap FIR over doubles and ints): compiled with
// -maxrregcount 16 it spills to local memory (STL/LDL).
extern "C" __global__ void spill_pressure(const double* __restrict__ x, const int* __restrict__ w,
                                          double* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 16 > n) return;
    double acc[8];
    int iacc[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        acc[k] = x[i + k];
        iacc[k] = w[i + k];
    }
    double s = 0.0;
    int t = 0;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            acc[k] = acc[k] * 0.5 + x[i + k + r + 1] * (double)iacc[(k + r) & 7];
            iacc[k] = iacc[k] * 3 + (int)acc[(k + 1) & 7];
        }
        s += acc[r] + acc[7 - r];
        t ^= iacc[r] + iacc[7 - r];
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) s += acc[k] * (double)(iacc[k] + t);
    y[i] = s;
}
