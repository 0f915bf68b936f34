/* options: -q */
/*
 * An extern declaration of a symbol the kernel lacks is accepted, as are prototypes
 * with or without extern; only reading the symbol fails (extern_unknown_symbol_used).
 */
extern int no_such_kernel_symbol;
extern int no_such_kernel_function(int);
int getpid(void);
int execve(const char *path, char *const argv[], char *const envp[]);

BEGIN
{
	printf("declared\n");
	exit(0);
}
