/* options: -q -x strsize=2048 */
/*
 * A load of a string dynamic variable takes no scratch space: forty loads of
 * 2k strings fit in one clause (they ran the kernel engine out of scratch space).
 */
BEGIN
{
	s["a"] = "alpha";
	self->t = "tango";
	this->n = 0;
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	this->n += strlen(s["a"]) + strlen(self->t) + strlen(s["a"]) + strlen(self->t);
	self->u = s["a"];
	s["b"] = self->t;
	printf("%d %s %s %s %s\n", this->n, self->u, s["b"], s["a"], self->t);
	printf("%d %s\n", s["a"] == self->u, strjoin(s["b"], "!"));
	exit(0);
}
