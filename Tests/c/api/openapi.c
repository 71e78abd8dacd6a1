/* gw_config_from_openapi: an OpenAPI document as a gateway config, and its errors. */
#include "support.h"
#include "tests.h"

#include <stdlib.h>
#include <unistd.h>

/* Writes `text` to a new file under /tmp; returns its path (freed by the caller). The importer
 * tells YAML from JSON by the text, not by the file's name. */
static char *write_document(const char *text)
{
    char *path = strdup("/tmp/gw-openapi-XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_INT((int)write(fd, text, strlen(text)), (int)strlen(text));
        close(fd);
    }
    return path;
}

void test_config_from_openapi(void)
{
    char *config = NULL;
    char *report = NULL;
    char *good = write_document(
        "openapi: 3.0.0\n"
        "info: {title: t, version: '1'}\n"
        "servers: [{url: 'https://api.example.com/v1/'}]\n"
        "paths:\n"
        "  /pets/{petId}:\n"
        "    get:\n"
        "      operationId: showPet\n"
        "      responses:\n"
        "        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}\n"
        "components:\n"
        "  schemas:\n"
        "    Pet: {type: object, required: [id], properties: {id: {type: integer}}}\n");
    char *dangling = write_document("openapi: 3.0.0\npaths: {/a: {$ref: '#/nope'}}\n");

    CHECK_INT(gw_config_from_openapi(good, -1, &config, &report), GW_OK);
    CHECK_CONTAINS(config, "\"baseURL\": \"https://api.example.com/v1\"");
    CHECK_CONTAINS(config, "\"pathPattern\": \"/pets/:petId\"");
    CHECK_CONTAINS(config, "\"id\": {\n          \"required\": true,\n          \"type\": \"integer\"");
    CHECK(report != NULL && report[0] == '\0'); /* nothing the config cannot express */
    CHECK_INT(gw_config_check(config, NULL), GW_OK);
    printf("   config: %zu bytes, report: \"%s\"\n", config ? strlen(config) : 0, report ? report : "NULL");
    gw_string_free(config);
    gw_string_free(report);

    config = NULL;
    CHECK_INT(gw_config_from_openapi(good, 0, &config, NULL), GW_OK); /* the report is optional */
    CHECK(config != NULL);
    gw_string_free(config);

    CHECK_INT(gw_config_from_openapi(good, 3, &config, &report), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "#/servers: there is no server 3");
    CHECK(config == NULL && report == NULL);
    CHECK_INT(gw_config_from_openapi(dangling, -1, &config, &report), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "#/paths/~1a/$ref: the $ref \"#/nope\" names nothing");
    printf("   dangling $ref: \"%s\"\n", gw_last_error_message());
    CHECK_INT(gw_config_from_openapi(NULL, -1, &config, &report), GW_ERROR_INVALID_ARGUMENT);
    CHECK_INT(gw_config_from_openapi(good, -1, NULL, &report), GW_ERROR_INVALID_ARGUMENT);
    CHECK_INT(gw_config_from_openapi(good, -2, &config, &report), GW_ERROR_INVALID_ARGUMENT);

    unlink(good);
    unlink(dangling);
    free(good);
    free(dangling);
}
