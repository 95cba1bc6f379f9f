#include "test_util.h"
int main(void) { CHECK(1 + 1 == 2); return test_finish("smoke"); }
