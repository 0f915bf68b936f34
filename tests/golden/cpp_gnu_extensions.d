/* options: -q -C */
#include "cpp_gnu_extensions.h"

BEGIN
{
	printf("%d %d %d\n", sizeof (gnu_quad_t), sizeof (gnu_signed_t),
	    sizeof (uint64_t));
	printf("%d %d\n", sizeof (struct gnu_message), GNU_ANSWER);
	exit(0);
}
