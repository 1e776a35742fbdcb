// Escape-time iteration count per pixel: a float loop with a data-dependent exit.
extern "C" __global__ void mandelbrot(unsigned short* __restrict__ iters, int width, int height, float x0,
                                      float y0, float step, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cr = x0 + px * step, ci = y0 + py * step;
    float zr = 0.f, zi = 0.f;
    int k = 0;
    while (k < max_iter) {
        float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        ++k;
    }
    iters[py * width + px] = (unsigned short)k;
}
