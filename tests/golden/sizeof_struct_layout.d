/* options: -q */
/*
 * Structs and unions a D program declares are laid out as DTrace's type library
 * (libctf) lays them out: each member at the end of the previous one rounded up to a
 * byte and then to its alignment, no padding after the last member, a struct aligned
 * as its first member, each bit-field an integer of its own width starting on a byte.
 */
struct s { char c; long l; char d; };
struct t { int a; char b; };
struct bf { int a:3; int b:5; unsigned int c:20; char d; };
struct wide { unsigned long a:40; char c; };
union u { char c; long l; int i[3]; };
struct inner { char a; long b; };
struct outer { char c; struct inner i; };
struct arr { struct s x[2]; char z; };
struct nested { short h; union u un; struct t tt; };
struct bitRecord1 { int a : 1; } var1;
struct bitRecord2 { int a : 1; int b : 3; } var2;
struct bitRecord3 { int a : 1; int b : 3; int c : 3; } var3;
struct bitRecord12 { int a : 1; int b : 15; int c : 31; int d : 12; } var12;

BEGIN
{
	printf("struct s %d, l at %d, d at %d\n", sizeof (struct s),
	    offsetof(struct s, l), offsetof(struct s, d));
	printf("struct t %d, b at %d\n", sizeof (struct t), offsetof(struct t, b));
	printf("struct bf %d, d at %d\n", sizeof (struct bf), offsetof(struct bf, d));
	printf("struct wide %d, c at %d\n", sizeof (struct wide), offsetof(struct wide, c));
	printf("union u %d\n", sizeof (union u));
	printf("struct inner %d, struct outer %d, i at %d\n", sizeof (struct inner),
	    sizeof (struct outer), offsetof(struct outer, i));
	printf("struct arr %d, z at %d, struct s[3] %d\n", sizeof (struct arr),
	    offsetof(struct arr, z), sizeof (struct s[3]));
	printf("struct nested %d, un at %d, tt at %d\n", sizeof (struct nested),
	    offsetof(struct nested, un), offsetof(struct nested, tt));
	printf("bit-fields %d %d %d %d\n", sizeof (var1), sizeof (var2), sizeof (var3),
	    sizeof (var12));
	exit(0);
}
