/* options: -q -C */
/*
 * With -C, a system header's NULL, ((void *)0), replaces the name before the compiler
 * sees it, and compares as the built-in one does.
 */
#define __need_NULL
#include <stddef.h>

BEGIN
{
	p = (int *)0;
	s = "a";
	printf("%d %d %d\n", p == NULL, s != NULL, NULL == 0);
	exit(0);
}
