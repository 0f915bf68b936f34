/* options: -xerrtags */
/* A struct body needs one member declaration or more (DTrace's grammar). */
struct empty {
};
BEGIN { exit(0); }
