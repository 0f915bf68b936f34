/* options: -xerrtags */
/* -> through a pointer to a struct only declared names the struct, as libctf names
   the forward declaration (a typedef of it resolves to the struct). */
typedef struct undefined_here undefined_t;
undefined_t *p;
BEGIN
{
	trace(p->member);
}
