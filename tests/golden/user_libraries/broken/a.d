inline int BROKEN_A = 1;

inline int BROKEN_B = no_such_name;
