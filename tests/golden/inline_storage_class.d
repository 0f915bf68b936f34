/* options: -xerrtags */
/* An inline takes no storage class (dt_node_inline()), checked when its ; is read. */
inline self int limit =
    10;
BEGIN { exit(0); }
