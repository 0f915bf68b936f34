/* options: -q */
/*
 * A scalar array lives in memory: &array[i] and the array itself (decaying to a
 * pointer to its first element) point into it, pointer arithmetic and comparison
 * work on such pointers, and stores through them change the array.
 */
int array[5];
char c[4];

BEGIN
{
	array[0] = 234;
	array[1] = 334;
	array[2] = 434;
	ptr = &array[0];
	printf("array[0]: %d\tptr[0]: %d\n", array[0], ptr[0]);
	printf("array[1]: %d\tptr[1]: %d\n", array[1], ptr[1]);
	printf("array[2]: %d\tptr[2]: %d\n", array[2], ptr[2]);
	p = array;
	printf("%d %d\n", *p, *(p + 2));
	*(p + 1) = 7;
	p[2] = 8;
	printf("%d %d %d\n", array[0], array[1], array[2]);

	last = &array[4];
	printf("%d %d\n", last - ptr, (char *)last - (char *)ptr);
	ptr += 2;
	ptr++;
	*ptr = 99;
	printf("%d %d %d %d %d\n", array[3], ptr < last, ptr == last, ptr != last, ptr > last);

	c[0] = 'h';
	c[1] = 'i';
	s = c;
	printf("%s %s %d\n", stringof(c), stringof(s), sizeof (array));
	exit(0);
}
