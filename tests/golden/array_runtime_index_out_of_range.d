/* options: -q */
/*
 * An index known only at run time that falls outside an array held in a D variable
 * (an array of arrays, of structs, or an array member of a struct) reads 0 and stores
 * nothing, as for a one-dimensional array of scalars; in-range elements are untouched.
 */
struct point {
	int x;
	int tag[2];
};

int grid[3][4];
struct point points[3];
struct point kept[int];
struct point single;
string names[3];
char words[3][8];
self struct point mine;

BEGIN
{
	i = 1; big = 7; negative = -1; two = 2;
	grid[i][two] = 12;
	points[i].x = 5;
	points[i].tag[i] = 9;
	single.tag[i] = 4;

	grid[big][1] = 99;
	grid[1][big] = 98;
	grid[negative][0] = 97;
	points[big].x = 96;
	points[i].tag[big] = 95;
	single.tag[big] = 94;

	printf("%d %d %d %d\n", grid[i][two], points[i].x, points[i].tag[i], single.tag[i]);
	printf("%d %d %d %d\n", grid[big][1], grid[1][big], grid[negative][0], grid[i][negative]);
	printf("%d %d %d\n", points[big].x, points[i].tag[big], single.tag[big]);
	printf("%d %d %d\n", grid[2][0], grid[0][3], points[2].x);

	self->mine.tag[i] = 3;
	self->mine.tag[big] = 93;
	kept[1].tag[i] = 8;
	kept[1].tag[big]++;
	kept[1].tag[negative] += 2;
	printf("%d %d %d %d\n", self->mine.tag[i], self->mine.tag[big], kept[1].tag[i],
	    kept[1].tag[big]);
	printf("%d %d %d\n", self->mine.x, self->mine.tag[0], kept[1].x);

	names[i] = "one";
	names[big] = "five";
	words[i][0] = 'x';
	words[big][0] = 'y';
	printf("[%s] [%s] [%s] [%s]\n", names[i], names[big], words[i], words[big]);
	exit(0);
}
