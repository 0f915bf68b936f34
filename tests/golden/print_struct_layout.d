/* options: -q */
/*
 * print() of a declared struct, in DTrace for Linux's layout (D-REFERENCE.md §7.1):
 * `(struct foo) {`, one `.member = (type)value,` line per member, `}`. Choices where
 * the reference is silent, following Oracle's libdtrace: each nesting level indents
 * one more space; nested structs and unions open with ` {` and close with `},`; arrays
 * open with ` [`, list one `(type)value,` line per element and close with `],`;
 * integers print in decimal with their signedness (char members too); bit-fields print
 * as integers of their declared type; an enum prints its enumerator's name, or the
 * number when no enumerator has the value; pointers print as `(type *)0x…`; a char
 * array holding printable text prints as `(char [n])"text"`, any other char array
 * element by element; an anonymous struct or union member prints without the
 * `.member = ` part. Every member is printed, zero-valued ones included.
 */
enum color { RED, GREEN = 5, BLUE };

typedef unsigned long long counter_t;

struct inner {
	long s;
	counter_t total;
};

union number {
	int i;
	unsigned char bytes[4];
};

struct foo {
	int a;
	char name[8];
	struct inner in;
	union number n;
	int arr[3];
	unsigned int flag : 1;
	int small : 3;
	unsigned int wide : 12;
	enum color c;
	enum color other;
	struct foo *next;
	char raw[2];
	char empty[4];
	union {
		int x;
		char letter;
	};
};

BEGIN
{
	this->f = (struct foo *)alloca(sizeof (struct foo));
	this->f->a = -7;
	this->f->name[0] = 'h';
	this->f->name[1] = 'i';
	this->f->in.s = 3;
	this->f->in.total = 1234567890123;
	this->f->n.i = 0x01020304;
	this->f->arr[0] = 1;
	this->f->arr[1] = -2;
	this->f->arr[2] = 3;
	this->f->flag = 1;
	this->f->small = -2;
	this->f->wide = 4095;
	this->f->c = GREEN;
	this->f->other = 7;
	this->f->next = (struct foo *)0xffff8000deadbeef;
	this->f->raw[0] = 1;
	this->f->raw[1] = 2;
	this->f->x = 65;
	print(*this->f);
	exit(0);
}
