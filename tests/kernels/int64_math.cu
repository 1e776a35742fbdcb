// 64-bit integer arithmetic: multiply, multiply-high, shifts by variable amounts, compares,
// select and 128-bit style carry chains.
extern "C" __global__ void int64_math(const unsigned long long* __restrict__ a, const long long* __restrict__ b,
                                      unsigned long long* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = a[i];
    long long y = b[i];
    unsigned long long lo = x * (unsigned long long)y;
    unsigned long long hi = __umul64hi(x, (unsigned long long)y);
    long long shi = __mul64hi(y, (long long)x);
    unsigned long long sum = lo + hi;
    unsigned long long carry = sum < lo;
    out[4 * i + 0] = sum + carry + (unsigned long long)shi;
    out[4 * i + 1] = (x >> (y & 63)) | ((unsigned long long)(y >> 3) << (x & 31));
    out[4 * i + 2] = (long long)x < y ? x - (unsigned long long)y : (unsigned long long)y * 3ull;
    out[4 * i + 3] = (unsigned long long)__mulhi((int)x, (int)y) + __umulhi((unsigned)x, (unsigned)(y >> 32));
}
