/* TEMPORARY placeholder: replaced by the dbscan module's own CLI files. */
#include "cli/cli.h"
#include <stdio.h>
int cli_dbscan(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_dbscan is not built yet\n"); return 4; }
int cli_metrics(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "parac: error: cli_metrics is not built yet\n"); return 4; }
