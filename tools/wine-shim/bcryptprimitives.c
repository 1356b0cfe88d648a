/* TEST-ONLY stand-in for Windows' bcryptprimitives.dll, for running the test suite under Wine 8
 * (Debian 12's Wine lacks this DLL, and Rust's std imports ProcessPrng from it since 1.78, so no
 * Rust program starts without it). It exports ProcessPrng on top of RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. Built and placed next to the test executables by
 * .ci/parts/windows.sh; never shipped: real Windows (8 and later) has the genuine DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
