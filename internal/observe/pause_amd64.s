#include "textflag.h"

// func pauseTicks(n int64) int64
// The TSC ticks of n PAUSE instructions. LFENCE keeps RDTSC from running ahead of the loop.
TEXT ·pauseTicks(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, R8
loop:
	PAUSE
	DECQ CX
	JNZ  loop
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	SUBQ R8, AX
	MOVQ AX, ret+8(FP)
	RET
