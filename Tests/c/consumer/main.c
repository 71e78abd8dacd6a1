/* The smallest Gatewire consumer: link the installed library and print its version. */
#include <gatewire.h>
#include <stdio.h>

int main(void)
{
    printf("gatewire %s\n", gw_version());
    return 0;
}
