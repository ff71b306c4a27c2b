/*
 * jget - print one value of a JSON document, for the shell tests.
 *
 *   jget FILE PATH
 *
 * PATH is a list of steps separated by '/': an object key, an array index,
 * or KEY=VALUE to pick the array element whose string KEY equals VALUE;
 * '#' as the last step prints the size of an array or object.  Numbers
 * print with full precision, strings as they are, null as "null".  Exit 1
 * when the path does not exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static json_t *step(json_t *v, const char *s)
{
  const char *eq = strchr(s, '=');
  char *end;

  if (json_is_array(v) && eq != NULL) {
    size_t i;
    json_t *e;

    json_array_foreach(v, i, e) {
      const char *x = json_string_value(
        json_object_get(e, strndup(s, (size_t)(eq - s))));

      if (x != NULL && strcmp(x, eq + 1) == 0)
        return e;
    }
    return NULL;
  }
  if (json_is_array(v)) {
    long i = strtol(s, &end, 10);

    return *end == '\0' ? json_array_get(v, (size_t)i) : NULL;
  }
  return json_object_get(v, s);
}

int main(int argc, char **argv)
{
  json_error_t err;
  json_t *doc, *v;
  char *path, *s, *save = NULL;

  if (argc != 3) {
    fprintf(stderr, "usage: jget FILE PATH\n");
    return 2;
  }
  if ((doc = json_load_file(argv[1], 0, &err)) == NULL) {
    fprintf(stderr, "jget: %s: %s\n", argv[1], err.text);
    return 1;
  }
  v = doc;
  path = strdup(argv[2]);
  for (s = strtok_r(path, "/", &save); s != NULL && v != NULL;
       s = strtok_r(NULL, "/", &save)) {
    if (strcmp(s, "#") == 0) {
      printf("%zu\n", json_is_array(v) ? json_array_size(v)
                                       : json_object_size(v));
      return 0;
    }
    v = step(v, s);
  }
  if (v == NULL) {
    fprintf(stderr, "jget: %s: no %s\n", argv[1], argv[2]);
    return 1;
  }
  if (json_is_number(v))
    printf("%.17g\n", json_number_value(v));
  else if (json_is_string(v))
    printf("%s\n", json_string_value(v));
  else if (json_is_null(v))
    printf("null\n");
  else if (json_is_boolean(v))
    printf("%s\n", json_is_true(v) ? "true" : "false");
  else {
    char *d = json_dumps(v, JSON_COMPACT);
    printf("%s\n", d);
  }
  return 0;
}
