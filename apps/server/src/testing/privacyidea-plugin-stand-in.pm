# What privacyIDEA's FreeRADIUS plugin (privacyidea_radius.pm) sends to /validate/check, for the
# machines that do not have the plugin (it is in no Debian or npm package; the tests run the plugin
# itself where its file is: radius/privacyidea-plugin.test.ts). Written for these tests, not taken
# from the plugin: User-Name and User-Password, each read as text where its encoding is guessed
# (Encode::Guess), percent-encoded by URI::Encode without its reserved characters, then posted as a
# form by LWP with the User-Agent FreeRADIUS and no API key, to the URL of the [Default] section of
# the ini file the module's config names (configfile); Access-Accept when result.value is true.
use strict;
use warnings;
use Config::IniFiles;
use Encode::Guess;
use JSON;
use LWP::UserAgent;
use URI::Encode;

use vars qw(%RAD_REQUEST %RAD_REPLY %RAD_CHECK %RAD_CONFIG %RAD_PERLCONF);

use constant { MODULE_REJECT => 0, MODULE_FAIL => 1, MODULE_OK => 2 };

my $ini = Config::IniFiles->new( -file => $RAD_PERLCONF{'configfile'} );
my $url = $ini->val( 'Default', 'URL' );

sub authorize { return MODULE_OK }

# The text of an attribute's bytes where their encoding is guessed, else the bytes.
sub text_of {
    my ($bytes) = @_;
    my $guessed = Encode::Guess->guess($bytes);
    return ref $guessed ? $guessed->decode($bytes) : $bytes;
}

sub authenticate {
    my $encoder = URI::Encode->new( { encode_reserved => 0 } );
    my %form = (
        user => $encoder->encode( text_of( $RAD_REQUEST{'User-Name'} ) ),
        pass => $encoder->encode( text_of( $RAD_REQUEST{'User-Password'} ) ),
    );
    my $client   = LWP::UserAgent->new( agent => 'FreeRADIUS', timeout => 10 );
    my $response = $client->post( $url, \%form );
    my $answer   = eval { JSON->new->decode( $response->decoded_content ) };
    return MODULE_FAIL unless $response->is_success && ref $answer eq 'HASH';
    return $answer->{result}{value} ? MODULE_OK : MODULE_REJECT;
}

1;
