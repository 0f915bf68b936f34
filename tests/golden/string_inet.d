/* options: -q */
BEGIN
{
	this->v4 = (uint8_t *)alloca(4);
	this->v4[0] = 192;
	this->v4[1] = 168;
	this->v4[2] = 1;
	this->v4[3] = 20;
	this->v6 = (uint8_t *)alloca(16);
	this->v6[0] = 254;
	this->v6[1] = 128;
	this->v6[2] = 0;
	this->v6[3] = 0;
	this->v6[4] = 0;
	this->v6[5] = 0;
	this->v6[6] = 0;
	this->v6[7] = 0;
	this->v6[8] = 0;
	this->v6[9] = 0;
	this->v6[10] = 0;
	this->v6[11] = 0;
	this->v6[12] = 0;
	this->v6[13] = 0;
	this->v6[14] = 0;
	this->v6[15] = 1;
	this->mapped = (uint8_t *)alloca(16);
	this->mapped[0] = 0;
	this->mapped[1] = 0;
	this->mapped[2] = 0;
	this->mapped[3] = 0;
	this->mapped[4] = 0;
	this->mapped[5] = 0;
	this->mapped[6] = 0;
	this->mapped[7] = 0;
	this->mapped[8] = 0;
	this->mapped[9] = 0;
	this->mapped[10] = 255;
	this->mapped[11] = 255;
	this->mapped[12] = 192;
	this->mapped[13] = 168;
	this->mapped[14] = 1;
	this->mapped[15] = 20;
	this->mac = (uint8_t *)alloca(6);
	this->mac[0] = 0;
	this->mac[1] = 17;
	this->mac[2] = 34;
	this->mac[3] = 170;
	this->mac[4] = 187;
	this->mac[5] = 204;
	printf("%s %s\n", inet_ntop(2, this->v4), inet_ntoa((ipaddr_t *)this->v4));
	printf("%s %s\n", inet_ntop(10, this->v6), inet_ntoa6((in6_addr_t *)this->v6));
	printf("%s\n", inet_ntop(10, this->mapped));
	printf("%s\n", link_ntop(1, this->mac));
}

BEGIN
{
	s = inet_ntop(99, this->v4);
}

BEGIN
{
	exit(0);
}
