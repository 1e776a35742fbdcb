// y[i] = a * x[i] + y[i] in double precision, plus a 64-bit index so the address
// arithmetic is 64-bit (IMAD.WIDE / LEA.HI.X).
extern "C" __global__ void daxpy_f64(double a, const double* __restrict__ x, double* __restrict__ y,
                                     long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fma(a, x[i], y[i]);
    }
}
