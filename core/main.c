#include "rdmatest/applet.h"
#include "rdmatest/providers.h"

int main(int argc, char **argv)
{
	rt_static_providers();
	return rt_dispatch(argc, argv);
}
