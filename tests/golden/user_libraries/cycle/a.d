#pragma D depends_on library b.d
