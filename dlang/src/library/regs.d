/*
 * regs.d: the registers of x86_64 as indexes into regs[] and uregs[], whose words are
 * those of the kernel's struct pt_regs in its order: `uregs[R_PC]`, `regs[R_RAX]`.
 * R_PC, R_SP, R_FP and R_PS name the program counter, stack pointer, frame pointer and
 * flags; R_R0 and R_R1 the two registers a function returns its value in.
 */

inline int R_R15 = 0;
inline int R_R14 = 1;
inline int R_R13 = 2;
inline int R_R12 = 3;
inline int R_RBP = 4;
inline int R_RBX = 5;
inline int R_R11 = 6;
inline int R_R10 = 7;
inline int R_R9 = 8;
inline int R_R8 = 9;
inline int R_RAX = 10;
inline int R_RCX = 11;
inline int R_RDX = 12;
inline int R_RSI = 13;
inline int R_RDI = 14;
inline int R_ORIG_RAX = 15;
inline int R_RIP = 16;
inline int R_CS = 17;
inline int R_RFL = 18;
inline int R_RSP = 19;
inline int R_SS = 20;

inline int R_PC = 16;
inline int R_SP = 19;
inline int R_FP = 4;
inline int R_PS = 18;
inline int R_R0 = 10;
inline int R_R1 = 12;
