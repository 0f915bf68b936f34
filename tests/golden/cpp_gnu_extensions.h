/*
 * GNU C as headers write it: attributes, __extension__, the double-underscore
 * qualifiers, asm labels, _Noreturn, prototypes without extern, a static inline
 * function, a typedef repeating one of D's, and a flexible array member.
 */
__extension__ typedef long long gnu_quad_t;
typedef __signed__ int gnu_signed_t;
typedef unsigned long uint64_t;
struct gnu_message {
	int gm_length __attribute__ ((__aligned__ (8)));
	unsigned char gm_data[];
} __attribute__ ((__packed__));
extern int gnu_printf(const char *__restrict __format, ...)
    __attribute__ ((__format__ (__printf__, 1, 2)));
extern int gnu_renamed(int) __asm__ ("" "gnu_renamed64");
extern _Noreturn void gnu_exit(int __status);
int gnu_execute(const char *__path, char *const __argv[]);
extern __const char *__volatile gnu_name;
static __inline unsigned int
gnu_swap(unsigned int __value)
{
	return ((__value >> 8) & 0xff) | ((__value & 0xff) << 8);
}
#define	GNU_ANSWER	42
