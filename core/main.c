#include "rdmatest/applet.h"

int main(int argc, char **argv)
{
	return rt_dispatch(argc, argv);
}
