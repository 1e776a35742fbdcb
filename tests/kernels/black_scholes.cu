// Black-Scholes call and put prices (float): logf, sqrtf, expf and the
// cumulative normal distribution by the Abramowitz-Stegun polynomial.
__device__ float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
                a4 = -1.821255978f, a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = rsqrt2pi * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(const float *s, const float *x, const float *t,
                                         float *call, float *put, float r, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sqt = sqrtf(t[i]);
    float d1 = (logf(s[i] / x[i]) + (r + 0.5f * v * v) * t[i]) / (v * sqt);
    float d2 = d1 - v * sqt;
    float e = expf(-r * t[i]);
    call[i] = s[i] * cnd(d1) - x[i] * e * cnd(d2);
    put[i] = x[i] * e * (1.0f - cnd(d2)) - s[i] * (1.0f - cnd(d1));
}
