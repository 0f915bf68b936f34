/* options: -q */
/*
 * print() of scalars, pointers, strings and char arrays: `(type)value` on a line of its
 * own. Integers print in decimal with their signedness and typedef names are kept; a
 * pointer prints as `(type *)0x…`; an enum by its enumerator's name; a string (choice:
 * as a char array holding text prints) as `(string)"text"`, and a char array holding
 * printable text as `(char [n])"text"`.
 */
enum state { IDLE, RUNNING };

typedef int pid_like_t;

BEGIN
{
	this->buffer = (char *)alloca(8);
	this->buffer[0] = 'a';
	this->buffer[1] = 'b';
	print(42);
	print(-1);
	print((unsigned int)-1);
	print((char)-3);
	print(0xffffffffffffffffULL);
	print((pid_like_t)1234);
	print(RUNNING);
	print((enum state)9);
	print((int *)0);
	print((struct nothing *)0x1000);
	print((void *)0xffffffff81000000);
	print("a string");
	print(strjoin("con", "cat"));
	print(*(char (*)[8])this->buffer);
	exit(0);
}
