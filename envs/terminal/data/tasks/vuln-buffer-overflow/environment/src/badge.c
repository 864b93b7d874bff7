/* badge: reads a visitor's name (one line) on stdin and prints their badge "Welcome, NAME (visitor)".
 * Staff machines set is_staff and print the door code; visitors must never see it.
 * Names longer than 15 characters are cut to their first 15 characters. */
#include <stdio.h>
#include <string.h>

struct session {
    char name[16];
    int is_staff;
    char role[16];
};

static void door_code(void) {
    char code[64] = "";
    FILE *f = fopen("/app/doorcode.txt", "r");
    if (f) {
        if (fgets(code, sizeof code, f)) code[strcspn(code, "\n")] = 0;
        fclose(f);
    }
    printf("Door code: %s\n", code);
}

int main(void) {
    struct session s;
    s.is_staff = 0;
    strcpy(s.role, "visitor");
    char input[1024];
    if (!fgets(input, sizeof input, stdin)) return 1;
    input[strcspn(input, "\n")] = 0;
    strcpy(s.name, input);
    printf("Welcome, %s (%s)\n", s.name, s.is_staff ? "staff" : s.role);
    if (s.is_staff) door_code();
    return 0;
}
