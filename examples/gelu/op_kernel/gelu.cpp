// Gelu (tanh approximation): y = 0.5 * x * (1 + tanh(k * (x + 0.044715 * x^3))), k = sqrt(2 / pi).
// The vector unit has no Tanh; since 0.5 * (1 + tanh(u)) == 1 / (1 + exp(-2u)) the kernel evaluates
// y = x / (1 + exp(-2u)), which also stays finite for large |x| (exp overflows to inf, x / inf -> 0).
// Tiling: each core owns one contiguous slice of blockLength elements (the last core the remainder) and streams
// it through UB in tiles of tileLength; only the very last tile can be shorter than a 32-byte block multiple, and
// that one goes through DataCopyPad. 16-bit inputs are widened to fp32 in TBuf scratch so the cubic and the
// exponential keep fp32 accuracy, then rounded back once.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2; // tilewise: tune BUFFER_NUM in [1, 2]

constexpr float GELU_CUBIC_COEF = 0.044715f;
constexpr float GELU_NEG_TWO_K = -1.5957691216057308f; // -2 * sqrt(2 / pi)

template <typename T>
class KernelGelu {
public:
    __aicore__ inline KernelGelu() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        const uint32_t start = GetBlockIdx() * blockLength;
        this->coreLength = (totalLength - start < blockLength) ? (totalLength - start) : blockLength;
        this->tileLength = tileLength;
        this->tileNum = (this->coreLength + tileLength - 1) / tileLength;
        this->lastTileLength = this->coreLength - (this->tileNum - 1) * tileLength;

        xGm.SetGlobalBuffer((__gm__ T*)x + start, this->coreLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, this->coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
        if constexpr (sizeof(T) < sizeof(float)) {
            pipe.InitBuffer(castBuf, tileLength * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            const uint32_t length = (i == tileNum - 1) ? lastTileLength : tileLength;
            CopyIn(i, length);
            Compute(length);
            CopyOut(i, length);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t length)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        if ((length * sizeof(T)) % 32 == 0) {
            DataCopy(xLocal, xGm[progress * tileLength], length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    // Evaluates x / (1 + exp(-2k * (x + c * x^3))) in fp32; src is x already in fp32.
    __aicore__ inline void GeluFp32(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                    const LocalTensor<float>& tmp, uint32_t length)
    {
        Mul(tmp, src, src, length);
        Mul(tmp, tmp, src, length);
        Muls(tmp, tmp, GELU_CUBIC_COEF, length);
        Add(tmp, tmp, src, length);
        Muls(tmp, tmp, GELU_NEG_TWO_K, length);
        Exp(tmp, tmp, length);
        Adds(tmp, tmp, 1.0f, length);
        Div(dst, src, tmp, length);
    }

    __aicore__ inline void Compute(uint32_t length)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        if constexpr (sizeof(T) < sizeof(float)) {
            LocalTensor<float> xFloat = castBuf.Get<float>();
            Cast(xFloat, xLocal, RoundMode::CAST_NONE, length);
            // The result overwrites the denominator in place: the division reads each lane before writing it.
            GeluFp32(tmp, xFloat, tmp, length);
            Cast(yLocal, tmp, RoundMode::CAST_RINT, length);
        } else {
            GeluFp32(yLocal, xLocal, tmp, length);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t length)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        if ((length * sizeof(T)) % 32 == 0) {
            DataCopy(yGm[progress * tileLength], yLocal, length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            DataCopyPad(yGm[progress * tileLength], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> tmpBuf;
    TBuf<QuePosition::VECCALC> castBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void gelu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGelu<DTYPE_X> op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
