"""Shared-object plugins the tests build with cc: one written against the gw_plugin_api table
(not linked against libGatewire) and one of the older kind, linked against libGatewire."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

INCLUDE = Path(__file__).resolve().parents[2] / "include"

# Counts the files whose path contains a string among the process's mappings
# (/proc/self/maps), so a test sees how many Gatewire cores and Swift runtimes are loaded.
MAPPED = textwrap.dedent("""
    #include <stdio.h>
    #include <string.h>
    static int mapped(const char *part) {
        char line[4096], last[4096] = "";
        int count = 0;
        FILE *maps = fopen("/proc/self/maps", "r");
        if (maps == NULL)
            return -1;
        while (fgets(line, sizeof line, maps) != NULL) {
            char *path = strchr(line, '/');
            if (path == NULL || strstr(path, part) == NULL || strcmp(path, last) == 0)
                continue;
            snprintf(last, sizeof last, "%s", path);
            count++;
        }
        fclose(maps);
        return count;
    }
""")

TABLE_SOURCE = "#define GW_PLUGIN_USE_API\n#include \"gatewire.h\"\n" + MAPPED + textwrap.dedent("""
    GW_PLUGIN_API_DEFINE
    static int32_t prepare(gw_request *request, void *user_data) {
        char count[16];
        (void)user_data;
        snprintf(count, sizeof count, "%d", mapped("libGatewire"));
        gw_request_set_header(request, "X-Mapped-Gatewire", count);
        snprintf(count, sizeof count, "%d", mapped("libswiftCore"));
        gw_request_set_header(request, "X-Mapped-Swift-Core", count);
        return gw_request_set_header(request, "X-From-Shared-Object", "table");
    }
    static void process(gw_process *process, void *user_data) {
        (void)user_data;
        if (gw_result_status(gw_process_result(process)) == 202)
            gw_process_fail(process, 0, "202 is not done");
    }
    int32_t gw_plugin_entry(gw_plugin *plugin, const gw_plugin_api *api) {
        GW_PLUGIN_API_INIT(api);
        plugin->version = GW_PLUGIN_VERSION;
        plugin->name = "shared";
        plugin->prepare = prepare;
        plugin->process = process;
        return 0;
    }
    int32_t wrong_version(gw_plugin *plugin, const gw_plugin_api *api) { (void)api; plugin->version = 99; return 0; }
""")

LINKED_SOURCE = "#include \"gatewire.h\"\n" + MAPPED + textwrap.dedent("""
    static int32_t prepare(gw_request *request, void *user_data) {
        char count[16];
        (void)user_data;
        snprintf(count, sizeof count, "%d", mapped("libGatewire"));
        gw_request_set_header(request, "X-Mapped-Gatewire", count);
        return gw_request_set_header(request, "X-From-Shared-Object", "linked");
    }
    int32_t gw_plugin_entry(gw_plugin *plugin) {
        plugin->version = GW_PLUGIN_VERSION_2;
        plugin->name = "linked";
        plugin->prepare = prepare;
        return 0;
    }
""")


# A table plugin whose constructor runs when the object is loaded: it creates the file named
# by $GW_TEST_LOAD_MARKER, so a test sees whether a program ran the object's code.
MARKER_SOURCE = "#define GW_PLUGIN_USE_API\n#include \"gatewire.h\"\n" + textwrap.dedent("""
    #include <stdio.h>
    #include <stdlib.h>
    GW_PLUGIN_API_DEFINE
    __attribute__((constructor)) static void mark(void) {
        const char *path = getenv("GW_TEST_LOAD_MARKER");
        FILE *file = path != NULL ? fopen(path, "w") : NULL;
        if (file != NULL)
            fclose(file);
    }
    int32_t gw_plugin_entry(gw_plugin *plugin, const gw_plugin_api *api) {
        GW_PLUGIN_API_INIT(api);
        plugin->version = GW_PLUGIN_VERSION;
        plugin->name = "marker";
        return 0;
    }
""")


def build_marker_plugin(directory: Path) -> Path:
    """The marker plugin as DIRECTORY/libmarker.so (see MARKER_SOURCE)."""
    return _build(directory, "marker", MARKER_SOURCE, ["-Wl,--no-undefined"])


def build_table_plugin(directory: Path) -> Path:
    """The table plugin as DIRECTORY/libtable.so; --no-undefined proves it needs no gw_* symbol."""
    return _build(directory, "table", TABLE_SOURCE, ["-Wl,--no-undefined"])


def build_linked_plugin(directory: Path, library_dir: str) -> Path:
    """The older kind as DIRECTORY/liblinked.so, linked against LIBRARY_DIR/libGatewire.so."""
    return _build(directory, "linked", LINKED_SOURCE, ["-L", library_dir, "-lGatewire", f"-Wl,-rpath,{library_dir}"])


def _build(directory: Path, name: str, source: str, flags: list[str]) -> Path:
    path = directory / f"{name}.c"
    path.write_text(source)
    library = directory / f"lib{name}.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-I", str(INCLUDE), "-o", str(library), str(path), *flags],
                   check=True, timeout=60)
    return library
