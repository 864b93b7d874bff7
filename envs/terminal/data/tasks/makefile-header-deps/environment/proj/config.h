#ifndef CONFIG_H
#define CONFIG_H
#define GREETING "hello"
#define REPEAT 2
#endif
