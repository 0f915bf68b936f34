inline int CHAIN_C = 20;

typedef struct chain_input {
	int ci_value;
} chain_input_t;

typedef struct chain_output {
	int co_double;
} chain_output_t;

translator chain_output_t < chain_input_t *input > {
	co_double = input->ci_value * 2;
};
