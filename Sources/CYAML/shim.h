/* libyaml 0.2.5 (Debian's libyaml-0-2): the YAML parser the OpenAPI importer reads YAML
 * documents with (events only; the importer builds a Jansson tree from them). */
#ifndef GATEWIRE_CYAML_SHIM_H
#define GATEWIRE_CYAML_SHIM_H
#include <yaml.h>
#endif
