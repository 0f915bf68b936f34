#pragma D depends_on library a.d
