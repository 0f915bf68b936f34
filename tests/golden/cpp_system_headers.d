/* options: -q -C */
/*
 * The C library's headers, as DTrace users include them with -C: their extern
 * declarations of functions and variables, glibc's static inline functions, typedefs
 * that repeat D's own (pid_t, size_t) or give a D name its C type (dev_t, id_t),
 * flexible array members and array parameters all compile, and the headers' types,
 * enumerators and macros are usable. The headers' prototypes of functions D also has
 * (printf, exit, strlen, htons) do not hide D's.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

BEGIN
{
	printf("%d %d %d\n", EINVAL, SIGKILL, AF_INET);
	printf("%d %d\n", sizeof (struct sockaddr_in), sizeof (pid_t));
	printf("%d %d\n", sizeof (dev_t), sizeof (off_t));
	printf("%x %d\n", htons(0x1234), strlen("abc"));
	exit(0);
}
