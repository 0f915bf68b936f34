/* options: -q */
BEGIN
{
	this->p = (uint8_t *)alloca(20);
	this->p[0] = 72;
	this->p[1] = 101;
	this->p[2] = 108;
	this->p[3] = 108;
	this->p[4] = 111;
	this->p[5] = 44;
	this->p[6] = 32;
	this->p[7] = 68;
	this->p[8] = 84;
	this->p[9] = 114;
	this->p[10] = 97;
	this->p[11] = 99;
	this->p[12] = 101;
	this->p[13] = 33;
	this->p[14] = 10;
	this->p[15] = 0;
	this->p[16] = 1;
	this->p[17] = 127;
	this->p[18] = 255;
	this->p[19] = 65;
	tracemem(this->p, 20);
	tracemem(this->p, 20, 5);
	printf("end\n");
	exit(0);
}
