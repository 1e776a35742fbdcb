// A per-thread array indexed with runtime values (kept in local memory): insertion sort of
// 24 keys, then a lookup by a data-dependent index. Also compiled with -maxrregcount 16.
extern "C" __global__ void local_array(const int* __restrict__ keys, const int* __restrict__ picks,
                                       int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a[24];
    for (int k = 0; k < 24; ++k) a[k] = keys[(i * 24 + k) % n] ^ (k * 0x9e3779b9);
    for (int k = 1; k < 24; ++k) {
        int v = a[k];
        int j = k - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = v;
    }
    int p = picks[i] % 24;
    if (p < 0) p += 24;
    out[i] = a[p] + a[23 - p];
}
