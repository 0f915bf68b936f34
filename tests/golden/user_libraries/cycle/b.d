#pragma D depends_on library c.d
