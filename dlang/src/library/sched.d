/*
 * sched.d: the current CPU's processor set, physical package (chip) and locality group
 * (NUMA node), read from curcpu as DTrace's sched.d defines them. `cpu` itself is a
 * built-in variable.
 */

inline psetid_t pset = curcpu->cpu_pset;
inline chipid_t chip = curcpu->cpu_chip;
inline lgrp_id_t lgrp = curcpu->cpu_lgrp;
